import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { instantOf, TimestampInputSchema } from "../../src/contract/timestamp";
import { runs } from "../support/property-runs";

const normalized = (text: string) => TimestampInputSchema.safeParse(text);

describe("timestamps: RFC 3339 with Z or an offset, normalized to UTC with milliseconds", () => {
  it.each([
    ["2026-11-23T14:00:00Z", "2026-11-23T14:00:00.000Z"],
    ["2026-11-23T14:00:00+00:00", "2026-11-23T14:00:00.000Z"],
    ["2026-11-23T14:00:00-00:00", "2026-11-23T14:00:00.000Z"],
    ["2026-11-23T14:00:00+01:00", "2026-11-23T13:00:00.000Z"],
    ["2026-11-23T14:00:00-05:30", "2026-11-23T19:30:00.000Z"],
    ["2026-11-23T10:00:00+14:00", "2026-11-22T20:00:00.000Z"],
    ["2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00.000Z"],
    ["2026-11-23T14:00:00.5Z", "2026-11-23T14:00:00.500Z"],
    ["2026-11-23T14:00:00.123456+00:00", "2026-11-23T14:00:00.123Z"],
    ["2026-11-23T14:00:00.999999999-01:00", "2026-11-23T15:00:00.999Z"],
    ["2028-02-29T12:00:00Z", "2028-02-29T12:00:00.000Z"],
    ["2000-02-29T23:00:00-02:00", "2000-03-01T01:00:00.000Z"],
  ])("%s is %s", (given, expected) => {
    expect(normalized(given)).toEqual({ success: true, data: expected });
  });

  it.each([
    ["no zone", "2026-11-23T14:00:00"],
    ["no seconds", "2026-11-23T14:00Z"],
    ["a compact offset", "2026-11-23T14:00:00+0100"],
    ["lower-case separators", "2026-11-23t14:00:00z"],
    ["a space for T", "2026-11-23 14:00:00Z"],
    ["a date alone", "2026-11-23"],
    ["a leap second", "2026-12-31T23:59:60Z"],
    ["hour 24", "2026-11-23T24:00:00Z"],
    ["an offset of 24 hours", "2026-11-23T14:00:00+24:00"],
    ["ten fractional digits", "2026-11-23T14:00:00.1234567890Z"],
    ["a year before 1000", "0999-11-23T14:00:00Z"],
    ["a year after 2999", "3000-11-23T14:00:00Z"],
  ])("refuses %s as invalid_format", (_, given) => {
    const parsed = normalized(given);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe("invalid_format");
  });

  it.each([
    ["29 February of a common year", "2027-02-29T12:00:00Z"],
    ["29 February 1900", "1900-02-29T12:00:00Z"],
    ["31 April", "2026-04-31T12:00:00+02:00"],
  ])("refuses %s as no_such_date", (_, given) => {
    const parsed = normalized(given);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe("no_such_date");
  });

  it("keeps the instant of any time written with any offset", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1000-01-02T00:00:00Z"), max: new Date("2999-12-30T00:00:00Z"), noInvalidDate: true }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        (date, offsetMinutes) => {
          const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const sign = offsetMinutes < 0 ? "-" : "+";
          const magnitude = Math.abs(offsetMinutes);
          const zone = `${sign}${String(Math.floor(magnitude / 60)).padStart(2, "0")}:${String(magnitude % 60).padStart(2, "0")}`;
          expect(instantOf(`${local}${zone}`)).toBe(date.getTime());
          expect(normalized(`${local}${zone}`).data).toBe(date.toISOString());
        },
      ),
      { numRuns: runs(500) },
    );
  });
});

import { z } from "@hono/zod-openapi";

/**
 * RFC 3339 as requests may write it: seconds required, up to 9 fractional digits, `Z` or a
 * numeric offset. Years 1000 to 2999, so that any offset still converts to a four-digit UTC year.
 */
const RFC3339 =
  /^([12]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d{1,9}))?(?:Z|([+-])([01]\d|2[0-3]):([0-5]\d))$/;

/**
 * The UTC instant an RFC 3339 timestamp names, in milliseconds (fractions below a millisecond
 * are cut), or null when it is not one: wrong shape, no zone, or a day its month does not have.
 */
export function instantOf(text: string): number | null {
  const match = RFC3339.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction = "", sign, offsetHours, offsetMinutes] = match;
  const local = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  if (new Date(local).getUTCDate() !== Number(day)) return null;
  const offset = sign ? (sign === "+" ? 1 : -1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000 : 0;
  return local + Number(fraction.padEnd(3, "0").slice(0, 3)) - offset;
}

/** A timestamp in a request: `Z` or a numeric offset; normalized to UTC with milliseconds (`…T13:00:00.000Z`). */
export const TimestampInputSchema = z
  .string()
  .transform((text, ctx) => {
    const instant = instantOf(text);
    if (instant !== null) return new Date(instant).toISOString();
    const rule = RFC3339.test(text) ? "no_such_date" : "invalid_format";
    ctx.issues.push({ code: "custom", message: rule, params: { rule }, input: text });
    return z.NEVER;
  })
  .openapi({
    type: "string",
    format: "date-time",
    pattern: RFC3339.source,
    description:
      "RFC 3339 with `Z` or a numeric offset (`2026-11-23T14:00:00+01:00`), a real calendar date, years 1000 to 2999. Stored and answered in UTC with milliseconds.",
    example: "2026-11-23T14:00:00+01:00",
  });

/** A timestamp in an answer: always UTC with milliseconds. */
export const TimestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  .openapi({ format: "date-time", example: "2026-11-23T13:00:00.000Z" });

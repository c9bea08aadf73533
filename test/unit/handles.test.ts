import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type HandleInput, normalizeHandle } from "../../src/space/identity/handles";

const RULES = ["phone_not_normalizable", "email_not_normalizable"];

/** Several spellings per number or address: each group must land on one handle. */
const PHONE_SPELLINGS: Record<string, string[]> = {
  "+15555550100": [
    "+15555550100",
    "+1 (555) 555-0100",
    "+1.555.555.0100",
    "+1 555 555 0100",
    "+1-555-555-0100",
    "0015555550100",
    "001 555 555 0100",
    " +15555550100 ",
    "\t+1 555 555 0100\n",
    "tel:+1-555-555-0100",
    "TEL:+15555550100",
    "+1/555/555/0100",
  ],
  "+442079460958": ["+44 (0)20 7946 0958", "+44 20 7946 0958", "+442079460958", "0044 20 7946 0958", "+44(0)2079460958"],
  "+34612345678": ["+34 612 34 56 78", "+34612345678", "0034 612 345 678", "+34.612.34.56.78"],
  "+4930123456": ["+49 30 123456", "+49 (0)30 123456", "0049 30 123456", "+49-30-123456"],
};

const EMAIL_SPELLINGS: Record<string, string[]> = {
  "jane@example.com": ["jane@example.com", "Jane@Example.com", "  JANE@EXAMPLE.COM  ", "\tjane@example.COM\n"],
  "o'brien+tag@mail.example.co.uk": ["O'Brien+Tag@Mail.Example.co.uk", " o'brien+tag@mail.example.co.uk"],
};

const BAD_PHONES = [
  "555-0100",
  "(555) 555-0100",
  "15555550100",
  "+1 555 FLOWERS",
  "+15555550100abc",
  "+1 555 555 0100 ext. 5",
  "tel:+15555550100;ext=1",
  "phone",
  "+1 23",
  "+1555555010",
  "+1 555 555 01001",
  "+1234567890123456789",
  "+44 00 20 7946 0958",
  "+999 12345678",
  "++15555550100",
  "",
  "   ",
  "+",
  "00",
];

const BAD_EMAILS = [
  "",
  "   ",
  "jane",
  "jane@",
  "@example.com",
  "jane@@example.com",
  "ja ne@example.com",
  "jane@exa mple.com",
  "a@b@c",
];

describe("normalizeHandle", () => {
  for (const [e164, spellings] of Object.entries(PHONE_SPELLINGS)) {
    it.each(spellings)(`normalizes phone %j to ${e164}`, (value) => {
      expect(normalizeHandle({ type: "phone_e164", value })).toEqual({
        ok: true,
        handle: { type: "phone_e164", scope: "", value: e164 },
      });
    });
  }

  it("gives one handle for every spelling of a number", () => {
    for (const spellings of Object.values(PHONE_SPELLINGS)) {
      const handles = spellings.map((value) => normalizeHandle({ type: "phone_e164", value, scope: "eu" }));
      for (const handle of handles) expect(handle).toEqual(handles[0]);
    }
  });

  it.each(BAD_PHONES)("refuses phone %j", (value) => {
    expect(normalizeHandle({ type: "phone_e164", value })).toEqual({ ok: false, rule: "phone_not_normalizable" });
  });

  for (const [email, spellings] of Object.entries(EMAIL_SPELLINGS)) {
    it.each(spellings)(`normalizes e-mail %j to ${email}`, (value) => {
      expect(normalizeHandle({ type: "email", value })).toEqual({ ok: true, handle: { type: "email", scope: "", value: email } });
    });
  }

  it.each(BAD_EMAILS)("refuses e-mail %j", (value) => {
    expect(normalizeHandle({ type: "email", value })).toEqual({ ok: false, rule: "email_not_normalizable" });
  });

  it("keeps other types exactly as given, within their scope", () => {
    expect(normalizeHandle({ type: "system_id", value: " Cust-0042 ", scope: "shop" })).toEqual({
      ok: true,
      handle: { type: "system_id", scope: "shop", value: " Cust-0042 " },
    });
    expect(normalizeHandle({ type: "crm_id", value: "ABC" })).toEqual({
      ok: true,
      handle: { type: "crm_id", scope: "", value: "ABC" },
    });
  });

  it("defaults the scope to the empty string", () => {
    for (const scope of [undefined, ""]) {
      const result = normalizeHandle({ type: "email", value: "jane@example.com", scope });
      expect(result.ok && result.handle.scope).toBe("");
    }
    const scoped = normalizeHandle({ type: "phone_e164", value: "+15555550100", scope: "support" });
    expect(scoped.ok && scoped.handle.scope).toBe("support");
  });
});

const phoneLike = fc
  .tuple(
    fc.constantFrom("+", "00", "tel:+", " +", ""),
    fc.array(fc.oneof(fc.constantFrom(..."0123456789"), fc.constantFrom(" ", "-", ".", "(", ")", "(0)")), {
      minLength: 0,
      maxLength: 20,
    }),
  )
  .map(([prefix, parts]) => `${prefix}${parts.join("")}`);
const knownSpelling = fc.constantFrom(...Object.values(PHONE_SPELLINGS).flat(), ...BAD_PHONES);
const emailLike = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom("@", "@@", ""), fc.string({ maxLength: 8 }))
  .map(([local, at, domain]) => `${local}${at}${domain}`);

const input: fc.Arbitrary<HandleInput> = fc
  .oneof(
    fc.record({ type: fc.constant("phone_e164"), value: fc.oneof(phoneLike, knownSpelling, fc.string()) }),
    fc.record({ type: fc.constant("email"), value: fc.oneof(emailLike, fc.emailAddress(), fc.string()) }),
    fc.record({ type: fc.constantFrom("system_id", "crm_id"), value: fc.string() }),
  )
  .chain((base) => fc.record({ scope: fc.option(fc.string(), { nil: undefined }) }).map(({ scope }) => ({ ...base, scope })));

describe("normalizeHandle properties", () => {
  it("is idempotent", () => {
    fc.assert(
      fc.property(input, (raw) => {
        const first = normalizeHandle(raw);
        if (!first.ok) return;
        expect(normalizeHandle(first.handle)).toEqual(first);
      }),
      { numRuns: 2000 },
    );
  });

  it("never puts the value in a rule", () => {
    fc.assert(
      fc.property(input, (raw) => {
        const result = normalizeHandle(raw);
        if (result.ok) return;
        expect(RULES).toContain(result.rule);
        // A value made only of the rule's own letters could be inside it by chance.
        if (!/^[a-z_]*$/.test(raw.value)) expect(result.rule).not.toContain(raw.value);
      }),
      { numRuns: 2000 },
    );
  });
});

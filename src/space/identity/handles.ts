import { parsePhoneNumberFromString } from "libphonenumber-js";

/**
 * How phones and e-mails must be spelled (docs/api/identity.md); the contract's identifier schema
 * states the same patterns. An e-mail is normalized by trimming and lower-casing, so its rule is
 * exact; a phone must also be a possible number for its country (libphonenumber), which no
 * pattern can say: the schema's description does.
 */
export const PHONE_SPELLING = /^\s*(?:[tT][eE][lL]:)?(?:\+|00)[\d\s.()/\-\u2010-\u2015\u2212]+$/;
export const EMAIL_SPELLING = /^\s*[^\s@]+@[^\s@]+\s*$/;

export type HandleInput = { type: string; value: string; scope?: string | undefined };
export type Handle = { type: string; scope: string; value: string };

export type HandleResult = { ok: true; handle: Handle } | { ok: false; rule: string };

const TEL_PREFIX = /^tel:/i;

/**
 * A handle is `(type, scope, normalized value)` (DESIGN 3.5). A failure names a fixed rule and
 * never the value: handle values are personal data.
 */
export function normalizeHandle(input: HandleInput): HandleResult {
  const scope = input.scope ?? "";
  if (input.type === "phone_e164") {
    const value = normalizePhone(input.value);
    return value === null ? { ok: false, rule: "phone_not_normalizable" } : handle(input.type, scope, value);
  }
  if (input.type === "email") {
    const value = normalizeEmail(input.value);
    return value === null ? { ok: false, rule: "email_not_normalizable" } : handle(input.type, scope, value);
  }
  return handle(input.type, scope, input.value);
}

function handle(type: string, scope: string, value: string): HandleResult {
  return { ok: true, handle: { type, scope, value } };
}

/**
 * No default country: only international spellings. `isPossible` rather than `isValid`, so that
 * fictional numbers (+1 555 555 01xx) pass. Letters, extensions and `tel:` parameters are
 * refused rather than dropped, so that two different lines never share a handle.
 */
/** Parsing a phone costs ~70 µs and customers write again and again: spellings seen lately are remembered. */
const recentPhones = new Map<string, string | null>();
const RECENT_PHONES = 20_000;

function normalizePhone(raw: string): string | null {
  const remembered = recentPhones.get(raw);
  if (remembered !== undefined) return remembered;
  if (recentPhones.size >= RECENT_PHONES) recentPhones.clear();
  const normalized = parsePhone(raw);
  recentPhones.set(raw, normalized);
  return normalized;
}

function parsePhone(raw: string): string | null {
  // International prefix (`+` or `00`), then digits and the usual separators, `(0)` included.
  if (!PHONE_SPELLING.test(raw)) return null;
  const text = raw.trim().replace(TEL_PREFIX, "");
  const phone = parsePhoneNumberFromString(text.startsWith("00") ? `+${text.slice(2)}` : text);
  if (!phone?.isPossible() || phone.ext) return null;
  const e164 = phone.number;
  // The result must read back as itself, so that normalizing is idempotent.
  const again = parsePhoneNumberFromString(e164);
  return again?.isPossible() && again.number === e164 ? e164 : null;
}

function normalizeEmail(raw: string): string | null {
  return EMAIL_SPELLING.test(raw) ? raw.trim().toLowerCase() : null;
}

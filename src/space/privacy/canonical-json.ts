/**
 * RFC 8785 (JSON Canonicalization Scheme): what a receipt's signature is computed over. Objects'
 * members sorted by their names' UTF-16 code units (what `Array.prototype.sort` compares), no
 * whitespace, strings and numbers as ECMAScript's `JSON.stringify` writes them (which RFC 8785
 * adopts: shortest round-trip numbers, `-0` as `0`). A value JSON cannot hold (a non-finite
 * number, `undefined` at the top, a function) is refused rather than written some other way.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError("canonical JSON has no non-finite numbers");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((entry) => canonicalJson(entry === undefined ? null : entry)).join(",")}]`;
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    const names = Object.keys(record)
      .filter((name) => record[name] !== undefined)
      .sort();
    return `{${names.map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`).join(",")}}`;
  }
  throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
}

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so keys sort by
 * the time they were made (SPEC: "a time-sortable UUID (version 7)"). Clock and random source are
 * the client's, so tests get exact keys.
 */
export function uuidv7(now: () => number, random: () => number): string {
  const bytes = new Uint8Array(16);
  let ms = Math.floor(now());
  for (let index = 5; index >= 0; index--) {
    bytes[index] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  for (let index = 6; index < 16; index++) bytes[index] = Math.floor(random() * 256);
  bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

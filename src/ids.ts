const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
/** Random bytes drawn 4 KiB at a time: one `getRandomValues` call per 409 ids, not one each. */
const POOL = new Uint8Array(4096);
let poolAt = POOL.length;

/**
 * UUID version 7: time-ordered, so ids created in sequence land at the end of their index
 * instead of at random places in it.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  if (poolAt + 10 > POOL.length) {
    crypto.getRandomValues(POOL);
    poolAt = 0;
  }
  const bytes = new Uint8Array(16);
  bytes.set(POOL.subarray(poolAt, poolAt + 10), 6);
  poolAt += 10;
  let time = nowMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  let hex = "";
  for (let i = 0; i < 16; i++) {
    hex += HEX[bytes[i] as number];
    if (i === 3 || i === 5 || i === 7 || i === 9) hex += "-";
  }
  return hex;
}

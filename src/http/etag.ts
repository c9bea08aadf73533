/** A strong ETag of an answer's JSON: the same answer always has the same tag. */
export async function etagOf(json: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(json)));
  let binary = "";
  for (const byte of digest.slice(0, 18)) binary += String.fromCharCode(byte);
  return `"${btoa(binary).replaceAll("+", "-").replaceAll("/", "_")}"`;
}

/** Whether an `If-None-Match` header names the tag (`*`, a list, weak or strong). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const candidate = tag.trim().replace(/^W\//, "");
    return candidate === "*" || candidate === etag;
  });
}

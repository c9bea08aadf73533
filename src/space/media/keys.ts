/** Where a file's bytes are in R2 (DESIGN §1): one key per reservation, whatever its subject. */
export function mediaKey(space: string, mediaRef: string): string {
  return `spaces/${space}/media/${mediaRef}`;
}

import { Problem } from "./problem";

/**
 * A request body as the edge hands it on: read up to a limit, never further, so an oversized
 * body costs no more than the limit. The object decides what each outcome means after it has
 * checked the credential.
 */
export type BodyInput =
  | { status: "ok"; text: string }
  | { status: "too_large"; limit: number }
  | { status: "not_json" }
  | { status: "not_utf8" }
  /** The body could not be read whole: it ended before its `Content-Length`, or the connection failed. */
  | { status: "unreadable" };

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

export function isJsonContentType(header: string | null | undefined): boolean {
  if (!header) return false;
  const media = header.split(";", 1)[0]?.trim() ?? "";
  return JSON_MEDIA_TYPE.test(media);
}

export async function readJsonBody(request: Request, limit: number): Promise<BodyInput> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    await request.body?.cancel();
    return { status: "not_json" };
  }
  return readTextBody(request, limit);
}

export async function readTextBody(request: Request, limit: number): Promise<BodyInput> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) {
    await request.body?.cancel();
    return { status: "too_large", limit };
  }
  if (!request.body) return { status: "ok", text: "" };
  let bytes: Uint8Array | null;
  try {
    // With a declared length within the limit (the runtime holds the body to it), one native read.
    bytes = declared >= 0 ? new Uint8Array(await request.arrayBuffer()) : await readWithin(request.body, limit);
  } catch {
    // The runtime rejects a read that ends short of Content-Length ("Network connection lost"):
    // the client's fault, told as such, never a 500.
    return { status: "unreadable" };
  }
  if (!bytes) return { status: "too_large", limit };
  try {
    return { status: "ok", text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes) };
  } catch {
    return { status: "not_utf8" };
  }
}

/** A body of unknown length, read until it passes the limit (then null) or ends. */
async function readWithin(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : concat(chunks, size);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** The body as JSON, or the `422 invalid_input` that says why not (never what it contained). */
export function parseJsonBody(input: BodyInput): unknown {
  switch (input.status) {
    case "not_json":
      throw new Problem("invalid_input", "Content-Type must be application/json");
    case "too_large":
      throw new Problem("invalid_input", `body is larger than ${input.limit} bytes`);
    case "not_utf8":
      throw new Problem("invalid_input", "body is not valid UTF-8");
    case "unreadable":
      throw new Problem("invalid_input", "body could not be read whole: shorter than its Content-Length, or cut off");
    case "ok":
      try {
        return JSON.parse(input.text);
      } catch {
        throw new Problem("invalid_input", "body is not valid JSON");
      }
  }
}

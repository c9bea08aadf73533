import { Problem } from "./problem";

/** Opaque paging cursors: the id after which the next page starts. */
export function encodeCursor(afterId: string): string {
  return btoa(JSON.stringify({ after: afterId }))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replaceAll("=", "");
}

export function decodeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
    if (typeof parsed === "object" && parsed !== null && typeof (parsed as { after?: unknown }).after === "string") {
      return (parsed as { after: string }).after;
    }
  } catch {
    // fall through: a cursor we did not write is invalid input
  }
  throw new Problem("invalid_input", "query.cursor: not_issued_by_this_service");
}

/** A page from rows fetched with `limit + 1`: the extra row only says there is more. */
export function pageFrom<T>(rows: T[], limit: number, idOf: (row: T) => string): { data: T[]; next_cursor: string | null } {
  const data = rows.slice(0, limit);
  const last = data.at(-1);
  return { data, next_cursor: rows.length > limit && last ? encodeCursor(idOf(last)) : null };
}

/** What a cursor pages through: a cursor of one list is not issued for another. */
export type CursorList = "search" | "timeline" | "suggestions" | "people" | "projects" | "spaces" | "sources" | "keys" | "audit";

/**
 * Signs the cursors an object issues (HMAC-SHA256 with the object's own key, over the list and
 * the cursor) and opens only those: a well-formed cursor the service never issued, one altered,
 * or one of another list or another space, is `422 <place>: not_issued_by_this_service` before
 * anything reads it. The signature follows the cursor after a `.`.
 */
export class CursorSeal {
  #key: Promise<CryptoKey> | undefined;

  constructor(private readonly secret: () => Uint8Array) {}

  async seal(list: CursorList, cursor: string | null): Promise<string | null> {
    if (cursor === null) return null;
    const signature = await crypto.subtle.sign("HMAC", await this.#cryptoKey(), signed(list, cursor));
    return `${cursor}.${base64url(new Uint8Array(signature))}`;
  }

  /** The cursor as the domain issued it, or undefined without one; `place` names the field in `detail`. */
  async open(list: CursorList, sealed: string | undefined, place: string): Promise<string | undefined> {
    if (sealed === undefined) return undefined;
    const dot = sealed.lastIndexOf(".");
    const signature = dot > 0 ? fromBase64url(sealed.slice(dot + 1)) : null;
    const cursor = sealed.slice(0, dot);
    if (!signature || !(await crypto.subtle.verify("HMAC", await this.#cryptoKey(), signature, signed(list, cursor)))) {
      throw new Problem("invalid_input", `${place}: not_issued_by_this_service`);
    }
    return cursor;
  }

  #cryptoKey(): Promise<CryptoKey> {
    this.#key ??= crypto.subtle.importKey("raw", this.secret(), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    return this.#key;
  }
}

function signed(list: CursorList, cursor: string): Uint8Array {
  return new TextEncoder().encode(`${list}\n${cursor}`);
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replaceAll("=", "");
}

/** A signature's 32 bytes, from their one spelling: 43 characters carry 2 spare bits, which must be zero. */
function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
  const bytes = Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (char) => char.charCodeAt(0));
  return base64url(bytes) === text ? bytes : null;
}

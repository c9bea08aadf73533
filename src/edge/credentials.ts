import type { Context } from "hono";
import type { PresentedCredential } from "../auth/credential";
import { type PersonActor, TOKEN_REFUSED, verifyPersonToken } from "../auth/person-token";
import { keyDigest, parseSourceKey } from "../auth/source-key";
import { Problem } from "../http/problem";
import { addressOf } from "./address";
import type { AppEnv } from "./context";

const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function bearer(c: Context<AppEnv>): string {
  const match = BEARER.exec(c.req.header("authorization") ?? "");
  if (!match?.[1]) throw new Problem("unauthenticated", "Authorization: Bearer credential missing or malformed");
  return match[1];
}

/**
 * The credential of a data request, checked as far as the edge can without state: the key's
 * format and checksum, its space against the address, a person token's signature and expiry.
 * The space's object checks the rest against its replica (a revoked key, a cut token).
 */
export async function presentCredential(c: Context<AppEnv>, space: string): Promise<PresentedCredential> {
  const token = bearer(c);
  const secrets = c.get("secrets");
  if (token.startsWith(`${c.env.KEY_PREFIX}_`)) {
    const key = parseSourceKey(token, c.env.KEY_PREFIX);
    if (!key) throw new Problem("unauthenticated", "the source key is malformed");
    const address = addressOf(new URL(c.req.url).hostname, c.env);
    if (key.space !== space || (address?.api === "data" && address.region !== key.region)) {
      throw new Problem("forbidden", "the key belongs to another space");
    }
    return {
      kind: "key",
      keyId: key.keyId,
      digest: await keyDigest(secrets.pepper, key.secret),
      mode: key.mode,
      space: key.space,
      region: key.region,
    };
  }
  return { kind: "person", person: await personFrom(c, token) };
}

/**
 * The person of a control request, whatever their roles (the route checks those: `personOnly`): a
 * token verified at the edge (signature, expiry). A source key is `403` and anything else `401`:
 * neither names a person. Whether the token was cut is checked by the ControlObject, which every
 * control route calls.
 */
export async function presentPerson(c: Context<AppEnv>): Promise<PersonActor> {
  const token = bearer(c);
  if (parseSourceKey(token, c.env.KEY_PREFIX)) throw new Problem("forbidden", "this route needs a person token");
  return personFrom(c, token);
}

async function personFrom(c: Context<AppEnv>, token: string): Promise<PersonActor> {
  const person = JWT_SHAPE.test(token) ? await verifyPersonToken(c.get("secrets").jwtKey, token, Date.now()) : null;
  if (!person) throw new Problem("unauthenticated", TOKEN_REFUSED);
  return person;
}

/** Platform operation routes: `X-Service-Operator-Token`, compared in constant time. */
export function requireOperator(c: Context<AppEnv>): void {
  const given = new TextEncoder().encode(c.req.header("x-service-operator-token") ?? "");
  const expected = new TextEncoder().encode(c.get("secrets").operatorToken);
  if (given.byteLength !== expected.byteLength || !crypto.subtle.timingSafeEqual(given, expected)) {
    throw new Problem("unauthenticated", "X-Service-Operator-Token missing or wrong");
  }
}

import fc from "fast-check";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { formatSourceKey, newKeyId, newKeySecret, parseSourceKey, type SourceKey } from "../../src/auth/source-key";
import {
  checkBatchAnswer,
  fresh,
  httpTrim,
  markedHeader,
  marker,
  printable,
  problemCode,
  RUN,
  send,
  traceparentArb,
  trackRuns,
} from "../support/hostile";
import { runs } from "../support/property-runs";
import { createSpace, message, OPERATOR_TOKEN, type Space } from "../support/seed";

/**
 * Property-based hostile credentials and headers: Authorization on data and control routes,
 * the operator token, Idempotency-Key and traceparent. Tokens are built around the real key
 * and person token, so near misses are tried as well as junk.
 */

const RUNS = {
  dataCredentials: 300,
  controlCredentials: 200,
  operatorTokens: 80,
  idempotencyKeys: 100,
};
const finished = trackRuns(RUNS);

let space: Space;
let adminToken: string;
let parsedKey: SourceKey;
let wrongKeyTokens: string[];

beforeAll(async () => {
  space = await createSpace();
  adminToken = space.tenant.token;
  const parsed = parseSourceKey(space.key, "cms");
  if (!parsed) throw new Error("the test key does not parse");
  parsedKey = parsed;
  const now = Math.floor(Date.now() / 1000);
  const claims = { tid: space.tenant.tenantId, roles: ["admin"], vendor_sources: [] };
  const sign = (secret: string, iat: number, issuer = "customer-memory-service/control") =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject("zqbcdfghjk-person")
      .setIssuer(issuer)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 900)
      .sign(new TextEncoder().encode(secret));
  wrongKeyTokens = await Promise.all([
    sign("zqwrongsecretvx", now),
    sign("test-jwt-secreT", now),
    sign("", now).catch(() => "zqbcdfgh.zqbcdfgh.zqbcdfgh"),
    sign("zqwrongsecretvx", now - 3600),
    sign("zqwrongsecretvx", now, "zqissuerbcdfg"),
  ]);
}, 60_000);

const batchPath = () => `/spaces/${space.name}/v1/batch`;

// ---------------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------------

const B64URL = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"];
const KEY_CHARS = [...B64URL, "."];
const b64uSegment = fc.string({ unit: fc.constantFrom(...B64URL), minLength: 1, maxLength: 60 });

function base64url(text: string): string {
  let binaryText = "";
  for (const byte of new TextEncoder().encode(text)) binaryText += String.fromCharCode(byte);
  return btoa(binaryText).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Replaces one character of `text` (outside `keep`) by a different one from `alphabet`. */
function substitute(text: string, alphabet: readonly string[], keep: (index: number) => boolean = () => false) {
  return fc
    .tuple(fc.nat({ max: text.length - 1 }), fc.constantFrom(...alphabet))
    .filter(([index, char]) => !keep(index) && text[index] !== char)
    .map(([index, char]) => text.slice(0, index) + char + text.slice(index + 1));
}

const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(httpTrim(header))?.[1];
}

/** Tokens an attacker or a careless client might send, built around the real key and token. */
function tokenArb(): fc.Arbitrary<string> {
  const key = space.key;
  const [jwtHeader = "", jwtPayload = "", jwtSignature = ""] = adminToken.split(".");
  const otherMode = parsedKey.mode === "live" ? "test" : "live";
  const forgedClaims = fc
    .record({
      alg: fc.constantFrom("none", "HS256", "HS512", "RS256", "zqbcdfghalg"),
      sub: marker,
      roles: fc.constantFrom(["admin"], ["zqbcdfghrole"], []),
      exp: fc.integer({ min: 0, max: 4_000_000_000 }),
      signature: fc.oneof(fc.constant(""), b64uSegment, fc.constant(jwtSignature)),
    })
    .map(({ alg, sub, roles, exp, signature }) => {
      const header = base64url(JSON.stringify({ alg, typ: "JWT" }));
      const payload = base64url(
        JSON.stringify({
          sub,
          tid: space.tenant.tenantId,
          roles,
          vendor_sources: [],
          iss: "customer-memory-service/control",
          exp,
        }),
      );
      return `${header}.${payload}.${signature}`;
    });
  // The last character of a base64url segment may carry unused bits: changing it need not change the bytes.
  const lastOfSegment = (index: number) =>
    index === adminToken.length - 1 || adminToken[index + 1] === "." || adminToken[index] === ".";
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(key, adminToken) },
    { weight: 3, arbitrary: substitute(key, KEY_CHARS) },
    { weight: 1, arbitrary: marker.map((name) => formatSourceKey({ ...parsedKey, space: name })) },
    { weight: 1, arbitrary: marker.map((region) => formatSourceKey({ ...parsedKey, region })) },
    { weight: 1, arbitrary: fc.constant(formatSourceKey({ ...parsedKey, mode: otherMode })) },
    {
      weight: 1,
      arbitrary: fc.boolean().map((sameSpace) =>
        formatSourceKey({
          ...parsedKey,
          space: sameSpace ? parsedKey.space : "zqbcdfghsp",
          keyId: newKeyId(),
          secret: newKeySecret(),
        }),
      ),
    },
    { weight: 1, arbitrary: marker.map((prefix) => key.replace(/^cms/, prefix.slice(0, 16))) },
    { weight: 1, arbitrary: fc.nat({ max: key.length - 1 }).map((n) => key.slice(0, n)) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 1, maxLength: 4 }).map((s) => key + s) },
    { weight: 3, arbitrary: substitute(adminToken, B64URL, lastOfSegment) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(`${jwtHeader}.${jwtPayload}`, `${jwtHeader}.${jwtPayload}.`, `${jwtPayload}.${jwtSignature}`),
    },
    { weight: 2, arbitrary: forgedClaims },
    { weight: 1, arbitrary: fc.constantFrom(...wrongKeyTokens) },
    { weight: 2, arbitrary: fc.tuple(b64uSegment, b64uSegment, b64uSegment).map((parts) => parts.join(".")) },
    { weight: 2, arbitrary: marker },
    { weight: 1, arbitrary: printable },
  );
}

function authorizationArb(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          fc.constantFrom("Bearer ", "bearer ", "BEARER\t", "Bearer  ", "Token ", "Basic ", "", "Bearer"),
          tokenArb(),
          fc.constantFrom("", "", " ", "\t", " x"),
        )
        .map(([scheme, token, suffix]) => scheme + token + suffix),
    },
    { weight: 1, arbitrary: printable },
    { weight: 1, arbitrary: markedHeader },
  );
}

/** Secrets a detail must never repeat: the real credentials and whatever token was presented. */
function credentialSecrets(header: string | undefined): string[] {
  return [space.key, adminToken, space.key.split("_").at(-1) ?? "", ...(header ? [header, bearerToken(header) ?? ""] : [])];
}

describe("credentials and headers", () => {
  it("POST /v1/batch answers every malformed, mutated or foreign credential with 401 or 403", async () => {
    await fc.assert(
      fc.asyncProperty(authorizationArb(), traceparentArb, async (authorization, traceparent) => {
        const body = JSON.stringify({ items: [message()] });
        const answer = await send({
          method: "POST",
          path: batchPath(),
          headers: { authorization, "content-type": "application/json", traceparent },
          body,
          secrets: credentialSecrets(authorization),
        });
        const token = bearerToken(authorization);
        let expected = 401;
        if (token === space.key) expected = 200;
        else if (token === adminToken) expected = 403;
        else if (token?.startsWith("cms_")) {
          const key = parseSourceKey(token, "cms");
          if (key && key.space !== space.name) expected = 403;
        }
        expect(answer.status, `${authorization} -> ${answer.text}`).toBe(expected);
        if (expected === 200) checkBatchAnswer(answer, 1, body);
        else expect(problemCode(answer)).toBe(expected === 401 ? "unauthenticated" : "forbidden");
      }),
      { numRuns: runs(RUNS.dataCredentials) },
    );
    finished("dataCredentials");
  }, 120_000);

  it("control routes answer every credential that is not a valid person token with 401 or 403", async () => {
    const routes = [
      { method: "GET", path: () => "/control/v1/users/me", success: 200 },
      { method: "GET", path: () => "/control/v1/people", success: 200 },
      {
        method: "POST",
        path: () => "/control/v1/people",
        body: () => ({ email: `${fresh("p")}@example.test`, password: "correct horse battery staple", roles: ["review"] }),
        success: 201,
      },
      { method: "POST", path: () => "/control/v1/projects", body: () => ({ name: "Project" }), success: 201 },
      {
        method: "POST",
        path: () => `/control/v1/sources/${space.sourceId}/keys`,
        body: () => ({ scopes: ["track"], mode: "test" }),
        idempotent: true,
        success: 201,
      },
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        authorizationArb(),
        traceparentArb,
        async (route, authorization, traceparent) => {
          const body = "body" in route ? JSON.stringify(route.body()) : undefined;
          const answer = await send({
            method: route.method,
            path: route.path(),
            headers: {
              authorization,
              traceparent,
              "content-type": body === undefined ? undefined : "application/json",
              "idempotency-key": "idempotent" in route ? fresh("idem") : undefined,
            },
            body,
            secrets: credentialSecrets(authorization),
          });
          const token = bearerToken(authorization);
          let expected = 401;
          if (token === adminToken) expected = route.success;
          else if (token !== undefined && parseSourceKey(token, "cms")) expected = 403;
          expect(answer.status, `${route.method} ${route.path()} ${authorization} -> ${answer.text}`).toBe(expected);
          if (expected === 401) expect(problemCode(answer)).toBe("unauthenticated");
          if (expected === 403) expect(problemCode(answer)).toBe("forbidden");
        },
      ),
      { numRuns: runs(RUNS.controlCredentials) },
    );
    finished("controlCredentials");
  }, 120_000);

  it("POST /control/v1/tenants needs the exact operator token", async () => {
    const operator = fc.option(
      fc.oneof(
        { weight: 3, arbitrary: substitute(OPERATOR_TOKEN, [...B64URL, " "]) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(OPERATOR_TOKEN.toUpperCase(), `${OPERATOR_TOKEN}x`, OPERATOR_TOKEN.slice(0, -1), ""),
        },
        { weight: 1, arbitrary: fc.constantFrom(` ${OPERATOR_TOKEN}`, `${OPERATOR_TOKEN}\t`, OPERATOR_TOKEN) },
        { weight: 2, arbitrary: markedHeader },
        { weight: 1, arbitrary: printable },
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(operator, authorizationArb(), async (token, authorization) => {
        const body = JSON.stringify({
          name: "Tenant",
          admin: { email: `${fresh("op")}@example.test`, password: "correct horse battery staple" },
        });
        const answer = await send({
          method: "POST",
          path: "/control/v1/tenants",
          headers: { "x-service-operator-token": token, authorization, "content-type": "application/json" },
          body,
          secrets: [OPERATOR_TOKEN, ...(token ? [token] : []), ...credentialSecrets(authorization)],
        });
        const expected = token !== undefined && httpTrim(token) === OPERATOR_TOKEN ? 201 : 401;
        expect(answer.status, `${JSON.stringify(token)} -> ${answer.text}`).toBe(expected);
        if (expected === 401) expect(problemCode(answer)).toBe("unauthenticated");
      }),
      { numRuns: runs(RUNS.operatorTokens) },
    );
    finished("operatorTokens");
  }, 120_000);

  it("Idempotency-Key of a key creation: 1 to 256 characters, replayed with the same body, 409 with another", async () => {
    const seen = new Map<string, { body: string; keyId: string }>();
    const length = fc.oneof(
      fc.integer({ min: 0, max: 300 }),
      fc.constantFrom(0, 1, 255, 256, 257, 1000),
      fc.integer({ min: 250, max: 260 }),
    );
    const idempotencyKey = fc.tuple(length, marker, printable, fc.boolean()).map(([n, m, filler, padded]) => {
      const base = `${m}-${RUN}-${filler}`;
      const value = base.repeat(Math.ceil(n / Math.max(base.length, 1)) + 1).slice(0, n);
      return padded && value.length > 0 ? ` ${value}\t` : value;
    });
    const reuse = fc.boolean();
    await fc.assert(
      fc.asyncProperty(idempotencyKey, reuse, fc.constantFrom("live", "test"), async (generated, replay, mode) => {
        const previous = [...seen.keys()];
        const header = replay && previous.length > 0 ? (previous[generated.length % previous.length] as string) : generated;
        const body = JSON.stringify({ scopes: ["track"], mode });
        const answer = await send({
          method: "POST",
          path: `/control/v1/sources/${space.sourceId}/keys`,
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", "idempotency-key": header },
          body,
          secrets: [header],
        });
        const effective = httpTrim(header);
        const before = seen.get(effective);
        if (effective.length < 1 || effective.length > 256) {
          expect(answer.status, answer.text).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        } else if (before && before.body !== body) {
          expect(answer.status, answer.text).toBe(409);
          expect(problemCode(answer)).toBe("conflict");
        } else {
          expect(answer.status, answer.text).toBe(201);
          const created = answer.body as { key_id: string; key?: string };
          if (before) expect(created.key_id).toBe(before.keyId);
          else seen.set(effective, { body, keyId: created.key_id });
        }
      }),
      { numRuns: runs(RUNS.idempotencyKeys) },
    );
    finished("idempotencyKeys");
  }, 120_000);
});

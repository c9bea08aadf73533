import { importPepper } from "../auth/source-key";
import { controlObject } from "../control/address";
import type { Env } from "../env";
import { Problem } from "../http/problem";
import { hasAllSecrets, isDevelopment, mergeSecrets, missingProductionSecrets } from "../secrets";
import { importUploadKey } from "./media/upload-token";

export interface EdgeSecrets {
  pepper: CryptoKey;
  jwtKey: Uint8Array;
  operatorToken: string;
  /** HMAC key of the development store's upload tokens (`UPLOAD_SECRET`); null where it is not set (production needs none). */
  uploadKey: CryptoKey | null;
}

let cached: { signature: string; secrets: Promise<EdgeSecrets> } | undefined;

/**
 * The secrets the edge works with, prepared once per isolate. In development the missing ones
 * come from the ControlObject, which generated them; in production a missing one is `503`.
 */
export function edgeSecrets(env: Env): Promise<EdgeSecrets> {
  const missing = missingProductionSecrets(env);
  if (missing.length > 0) {
    console.error(JSON.stringify({ message: "missing secrets", secrets: missing }));
    throw new Problem("unavailable", "the service is not configured", { "Retry-After": "60" });
  }
  const signature = `${env.ENVIRONMENT}|${env.KEY_PEPPER ?? ""}|${env.JWT_SECRET ?? ""}|${env.OPERATOR_TOKEN ?? ""}|${env.UPLOAD_SECRET ?? ""}`;
  if (cached?.signature !== signature) {
    const secrets = load(env);
    secrets.catch(() => {
      if (cached?.secrets === secrets) cached = undefined;
    });
    cached = { signature, secrets };
  }
  return cached.secrets;
}

async function load(env: Env): Promise<EdgeSecrets> {
  const generated = isDevelopment(env) && !hasAllSecrets(env) ? await controlObject(env).developmentSecrets() : {};
  const secrets = mergeSecrets(env, generated);
  return {
    pepper: await importPepper(secrets.KEY_PEPPER),
    jwtKey: new TextEncoder().encode(secrets.JWT_SECRET),
    operatorToken: secrets.OPERATOR_TOKEN,
    uploadKey: secrets.UPLOAD_SECRET ? await importUploadKey(secrets.UPLOAD_SECRET) : null,
  };
}

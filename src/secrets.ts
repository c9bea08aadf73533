import type { Env } from "./env";

/**
 * Secrets (DESIGN 3.1). In development a missing secret is generated once and kept by the
 * ControlObject, so a fresh `wrangler dev` works and restarts keep keys valid; in production a
 * missing secret is an outage (`503`), never a generated value.
 */
export const GENERATED_SECRETS = ["KEY_PEPPER", "JWT_SECRET", "OPERATOR_TOKEN", "UPLOAD_SECRET"] as const;
const PRODUCTION_SECRETS = ["KEY_PEPPER", "JWT_SECRET", "OPERATOR_TOKEN", "R2_ACCESS_KEY_ID", "R2_SECRET_ACCESS_KEY"] as const;

export type SecretName = (typeof GENERATED_SECRETS)[number];
export type Secrets = Record<SecretName, string>;

export function isDevelopment(env: Env): boolean {
  return env.ENVIRONMENT === "development";
}

/** The secrets a production deployment lacks; empty in development, where they are generated. */
export function missingProductionSecrets(env: Env): string[] {
  if (isDevelopment(env)) return [];
  return PRODUCTION_SECRETS.filter((name) => !env[name]);
}

/** Secrets from the environment, with `generated` filling the gaps (development only). */
export function mergeSecrets(env: Env, generated: Partial<Secrets>): Secrets {
  const out = {} as Secrets;
  for (const name of GENERATED_SECRETS) out[name] = env[name] || generated[name] || "";
  return out;
}

export function hasAllSecrets(env: Env): boolean {
  return GENERATED_SECRETS.every((name) => Boolean(env[name]));
}

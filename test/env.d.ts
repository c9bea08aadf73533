import type { Env as WorkerEnv } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    /** Multiplies every property's runs (`test/support/property-runs.ts`); 1 in `npm test`. */
    propertyScale: number;
  }
}

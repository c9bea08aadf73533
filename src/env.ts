import type { ControlObject } from "./control/object";
import type { SpaceObject } from "./space/object";

/** Bindings, variables and secrets of the Worker (wrangler.toml; secrets per DESIGN 3.1). */
export interface Env {
  SPACE: DurableObjectNamespace<SpaceObject>;
  CONTROL: DurableObjectNamespace<ControlObject>;
  FILES: R2Bucket;
  IMPORTS: Queue;
  DELIVERIES: Queue;
  /** Workers AI, for model summaries where a space names a model (docs/operations.md); absent under `npm run dev` and in tests. */
  AI?: Ai;
  ENVIRONMENT: string;
  BASE_HOST: string;
  REGION: string;
  CELL: string;
  ERRORS_URL: string;
  KEY_PREFIX: string;
  R2_ACCOUNT_ID: string;
  R2_BUCKET_NAME: string;
  KEY_PEPPER?: string;
  JWT_SECRET?: string;
  OPERATOR_TOKEN?: string;
  UPLOAD_SECRET?: string;
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;
}

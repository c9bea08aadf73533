import type { PersonActor } from "./person-token";
import type { KeyMode } from "./source-key";

/**
 * A credential as the edge hands it to an object: well formed and, for a person token, signed.
 * A source key travels as its id and digest; the object compares the digest with its replica,
 * so the secret itself never leaves the edge.
 */
export type PresentedCredential =
  | { kind: "key"; keyId: string; digest: string; mode: KeyMode; space: string; region: string }
  | { kind: "person"; person: PersonActor };

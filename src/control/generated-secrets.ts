import { GENERATED_SECRETS, type Secrets } from "../secrets";
import type { ControlDb } from "./db";
import { generatedSecrets } from "./schema";

/** Development secrets: generated on first use, then kept, so restarts keep keys and tokens valid. */
export function developmentSecrets(db: ControlDb): Secrets {
  const held = new Map(
    db
      .select()
      .from(generatedSecrets)
      .all()
      .map((row) => [row.name, row.value]),
  );
  const out = {} as Secrets;
  for (const name of GENERATED_SECRETS) {
    let value = held.get(name);
    if (!value) {
      value = randomSecret();
      db.insert(generatedSecrets).values({ name, value }).run();
    }
    out[name] = value;
  }
  return out;
}

function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replaceAll("=", "");
}

// The packages the Worker and the tests import (`hono`, `drizzle-orm/sqlite-core`, ...), read
// from their sources when vitest starts, for vitest.config.ts to bundle ahead of the run. A list
// kept by hand would miss a new import, which would then load as a second copy of its package
// next to the bundled one (two `HTTPException` classes, say).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ROOTS = ["src", "test", "clients/typescript/src", "clients/typescript/test"];
/** Not packages: the runtime's and Node's modules, and vitest, which its pool provides. */
const PROVIDED = /^(cloudflare:|node:|vitest(\/|$))/;
// `import … from "x"`, `export … from "x"` and `import "x"`; `import type` loads nothing.
const STATIC = /^\s*(?:import|export)\s+(type\s)?(?:[^;]*?\sfrom\s*)?"([^"]+)"/gm;

/** Every specifier that is not a relative path, in the `.ts` files under `ROOTS`. */
export function packageImports() {
  const found = new Set();
  for (const directory of ROOTS) {
    for (const entry of readdirSync(join(ROOT, directory), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
      const text = readFileSync(join(entry.parentPath, entry.name), "utf8");
      for (const [, typeOnly, specifier] of text.matchAll(STATIC)) {
        if (!typeOnly && !specifier.startsWith(".") && !PROVIDED.test(specifier)) found.add(specifier);
      }
    }
  }
  return [...found].sort();
}

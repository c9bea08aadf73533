#!/usr/bin/env node
// `npm run build`: bundles the Worker as `wrangler deploy` would upload it, offline
// (`wrangler deploy --dry-run --outdir dist`), and fails when the upload would pass the Workers
// script size limit. `npm test` runs it, so a change that breaks the bundle or bloats it fails
// there and not at deploy time.
//
// The limit is on the compressed upload (every module: the script and the migrations it
// imports; the source map is not uploaded): 3 MB on the Workers Free plan, 10 MB on Paid. The
// bundle is held to the Free plan's, so the service deploys on either.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(ROOT, "dist");
const FREE_PLAN_LIMIT = 3 * 1024 * 1024;
const PAID_PLAN_LIMIT = 10 * 1024 * 1024;

rmSync(OUT, { recursive: true, force: true });
const wrangler = spawnSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", OUT], {
  cwd: ROOT,
  encoding: "utf8",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true" },
});
if (wrangler.status !== 0) {
  process.stderr.write(wrangler.stdout + wrangler.stderr);
  console.error(`build: wrangler deploy --dry-run failed (exit ${wrangler.status})`);
  process.exit(1);
}

const modules = readdirSync(OUT).filter((name) => !name.endsWith(".map") && name !== "README.md");
const bytes = modules.reduce((sum, name) => sum + readFileSync(join(OUT, name)).length, 0);
const gzipped = modules.reduce((sum, name) => sum + gzipSync(readFileSync(join(OUT, name))).length, 0);
const kib = (value) => `${(value / 1024).toFixed(1)} KiB`;
console.log(
  `build: dist/ holds ${modules.length} modules, ${kib(bytes)} (${kib(gzipped)} gzipped); ` +
    `Workers limit ${kib(FREE_PLAN_LIMIT)} gzipped on Free, ${kib(PAID_PLAN_LIMIT)} on Paid`,
);
if (gzipped > FREE_PLAN_LIMIT) {
  console.error("build: the Worker is over the Free plan's script size limit");
  process.exit(1);
}

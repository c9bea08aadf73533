#!/usr/bin/env node
// `npm run dev`: starts the service under `wrangler dev`, seeds a demo space on first start
// (tenant, admin, project, space `demo`, source, key with every data scope) and prints the key,
// the admin's login and a curl that works. What it printed is kept beside the local state, so a
// second start prints it again, and wiping `.wrangler/state` wipes both.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { seedDemo } from "./seed-demo.mjs";

const port = Number(process.env.PORT ?? 8787);
const origin = `http://127.0.0.1:${port}`;
const stateDir = ".wrangler/state";
const demoFile = `${stateDir}/demo.json`;

ensureDevVars();
const wrangler = spawn("npx", ["wrangler", "dev", "--ip", "127.0.0.1", "--port", String(port)], {
  stdio: ["inherit", "inherit", "inherit"],
  env: { ...offlineDefaults(), ...process.env, WRANGLER_SEND_METRICS: "false" },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => wrangler.kill(signal));
wrangler.on("exit", (code) => process.exit(code ?? 0));

try {
  await waitForService();
  const demo = (await savedDemoStillWorks()) ?? (await seedAndKeep());
  // The saved demo may come from a start on another PORT: its addresses are this start's.
  printDemo({ ...demo, base_url: `${origin}/spaces/${demo.space}` });
} catch (error) {
  console.error(`\nSeeding the demo failed: ${error.message}\n`);
}

/**
 * What keeps a start offline and quiet, unless the caller set otherwise: no fetch of the
 * `Request.cf` object from workers.cloudflare.com (it failed with a stack trace, twice), no
 * banner with its update check, and no local trace of every request (wrangler's local
 * observability kept one in `.wrangler/state`, over 1 GB after a soak).
 */
function offlineDefaults() {
  return { CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true", X_LOCAL_OBSERVABILITY: "false" };
}

/** Development secrets in `.dev.vars` (git-ignored), so this script knows the operator token. */
function ensureDevVars() {
  if (existsSync(".dev.vars")) return;
  const secret = () => randomBytes(32).toString("base64url");
  const lines = ["KEY_PEPPER", "JWT_SECRET", "OPERATOR_TOKEN", "UPLOAD_SECRET"].map((name) => `${name}=${secret()}`);
  writeFileSync(".dev.vars", `${lines.join("\n")}\n`);
}

function devVar(name) {
  const line = readFileSync(".dev.vars", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith(`${name}=`));
  return line?.slice(name.length + 1).trim();
}

async function waitForService() {
  for (let attempt = 0; attempt < 240; attempt++) {
    try {
      const response = await fetch(`${origin}/v1/openapi.json`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error("the service did not start within 2 minutes");
}

async function savedDemoStillWorks() {
  if (!existsSync(demoFile)) return null;
  const demo = JSON.parse(readFileSync(demoFile, "utf8"));
  const response = await fetch(`${origin}/spaces/${demo.space}/v1/whoami`, { headers: { authorization: `Bearer ${demo.key}` } });
  return response.ok ? demo : null;
}

async function seedAndKeep() {
  const demo = await seedDemo(origin, devVar("OPERATOR_TOKEN"));
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(demoFile, JSON.stringify(demo, null, 2));
  return demo;
}

function printDemo(demo) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const body = JSON.stringify({
    items: [
      {
        type: "event",
        idempotency_key: `demo-${Date.now()}`,
        channel: "whatsapp",
        conversation_id: "demo-conversation",
        handles: [{ type: "phone_e164", value: "+15555550100" }],
        speaker: { role: "customer" },
        content: { type: "text", text: "Hi, where is my order?" },
        occurred_at: now,
      },
    ],
  });
  console.log(`
──────────────────────────────────────────────────────────────────────
 Customer Memory Service is running at ${origin}
 Space:        ${demo.space}   (data API: ${demo.base_url})
 Source key:   ${demo.key}
 Admin login:  ${demo.admin.email} / ${demo.admin.password}
 API reference: ${origin}/docs   OpenAPI: ${origin}/v1/openapi.json

 Try it:
 curl -s -X POST ${demo.base_url}/v1/batch \\
   -H 'Authorization: Bearer ${demo.key}' \\
   -H 'Content-Type: application/json' \\
   -d '${body}'
──────────────────────────────────────────────────────────────────────
`);
}

// Starts and stops `wrangler dev` for the benchmark: one process group per server, a fresh
// persistence directory each, both removed on stop (also on error or Ctrl-C). BENCH_VERBOSE=1
// forwards wrangler's output (and the workers' console.warn/error) to stderr.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const WRANGLER = join(require.resolve("wrangler/package.json"), "..", "bin", "wrangler.js");
const running = new Set();

/** A TCP port nobody listens on right now. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * `wrangler dev` in its own process group, run by this Node (22, from the `node` devDependency).
 * Resolves once `readyPath` answers 2xx.
 * @param {{ label: string, cwd: string, config?: string, vars?: Record<string, string>, readyPath: string }} options
 */
export async function startWrangler({ label, cwd, config, vars = {}, readyPath }) {
  const port = await freePort();
  const inspectorPort = await freePort();
  const persistDir = mkdtempSync(join(tmpdir(), `cms-bench-${label}-`));
  const args = [WRANGLER, "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort)];
  args.push("--persist-to", persistDir, "--show-interactive-dev-session=false", "--log-level", "warn");
  if (config) args.push("--config", config);
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);

  const child = spawn(process.execPath, args, {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
  });
  const output = [];
  const keep = (chunk) => {
    if (process.env.BENCH_VERBOSE) process.stderr.write(chunk);
    output.push(chunk.toString());
    if (output.length > 200) output.shift();
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => child.on("exit", resolve));

  const server = {
    label,
    origin: `http://127.0.0.1:${port}`,
    output: () => output.join(""),
    stop: async () => {
      running.delete(server);
      await killGroup(child, exited);
      rmSync(persistDir, { recursive: true, force: true });
    },
  };
  running.add(server);

  const deadline = Date.now() + 120_000;
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  for (;;) {
    if (gone) {
      await server.stop();
      throw new Error(`wrangler dev (${label}) exited before it was ready:\n${server.output()}`);
    }
    try {
      const response = await fetch(`${server.origin}${readyPath}`);
      await response.arrayBuffer();
      if (response.ok) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`wrangler dev (${label}) was not ready within 2 minutes:\n${server.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Stops every server still running (error paths, signals). */
export async function stopAll() {
  await Promise.all([...running].map((server) => server.stop()));
}

async function killGroup(child, exited) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve("timeout"), 5000);
  });
  const outcome = await Promise.race([exited, timeout]);
  clearTimeout(timer);
  if (outcome === "timeout") {
    signal("SIGKILL");
    await exited;
  }
  // workerd may outlive wrangler's Node process for a moment: make sure the group is empty.
  signal("SIGKILL");
}

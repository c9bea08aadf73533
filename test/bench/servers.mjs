// Starts and stops `wrangler dev` for the benchmark: one process group per server, a fresh
// persistence directory each, both removed on stop (also on error or Ctrl-C). BENCH_VERBOSE=1
// forwards wrangler's output (and the workers' console.warn/error) to stderr.
//
// Two things wrangler dev does by default that a benchmark must not:
//   - it rebuilds and restarts the worker whenever a source file changes, losing the objects'
//     memory mid-run (and people edit the tree while a bench runs): the servers run from a
//     snapshot of the tree taken when the bench starts (`snapshotTree`), which nobody edits;
//   - local observability (X_LOCAL_OBSERVABILITY, on by default in wrangler 4.156) stores a
//     trace of every request under `<persist>/v3/observability`, written by the same workerd
//     process that serves the requests: 2.1 GB after one full run. Off here;
//     BENCH_LOCAL_OBSERVABILITY=1 keeps it on, to measure what it costs.

import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const WRANGLER = join(require.resolve("wrangler/package.json"), "..", "bin", "wrangler.js");
const running = new Set();
const OBSERVABILITY = process.env.BENCH_LOCAL_OBSERVABILITY === "1";

/**
 * A copy of what the servers build from (the working tree as it is now, not a commit): the
 * worker's sources, its migrations, the configs and the minimal path, with `node_modules` linked.
 * Answers its directory and a function that removes it.
 */
export function snapshotTree(root) {
  const dir = mkdtempSync(join(tmpdir(), "cms-bench-tree-"));
  for (const path of ["src", "migrations", "test/bench/minimal", "wrangler.toml", "tsconfig.json", "package.json"]) {
    cpSync(join(root, path), join(dir, path), { recursive: true, filter: (source) => !source.includes(".wrangler") });
  }
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The secrets a service started here runs with (`wrangler dev` vars), fresh for each call. */
export const serviceSecrets = () =>
  Object.fromEntries(
    ["KEY_PEPPER", "JWT_SECRET", "OPERATOR_TOKEN", "UPLOAD_SECRET"].map((name) => [name, randomBytes(32).toString("base64url")]),
  );

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
 * `observability`: wrangler's local observability (default: BENCH_LOCAL_OBSERVABILITY=1).
 * @param {{ label: string, cwd: string, config?: string, vars?: Record<string, string>, readyPath: string, observability?: boolean }} options
 */
export async function startWrangler({ label, cwd, config, vars = {}, readyPath, observability = OBSERVABILITY }) {
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
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      NO_COLOR: "1",
      X_LOCAL_OBSERVABILITY: observability ? "true" : "false",
      // Offline: no lookup of workers.cloudflare.com for `request.cf` (as in scripts/dev.mjs).
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
    },
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
    /** workerd's inspector, for a CPU profile (docs/performance.md). */
    inspector: `ws://127.0.0.1:${inspectorPort}/ws`,
    output: () => output.join(""),
    /** Whether wrangler's local observability wrote its store (it should not, unless asked to). */
    observabilityWritten: () => existsSync(join(persistDir, "v3", "observability")),
    /** CPU seconds the server's processes (wrangler and workerd) have used so far. */
    cpuSeconds: () => groupCpuSeconds(child.pid),
    /** The process group (wrangler and its workerd), for reading its processes in /proc. */
    pgid: child.pid,
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

let ticksPerSecond;

/**
 * CPU seconds (user and system, every thread) used so far by the live processes of a process
 * group, from Linux's /proc: what a server's work cost, whatever else the machine runs (a wall
 * clock on a shared machine counts the time other processes and the hypervisor take).
 */
export function groupCpuSeconds(pgid) {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));
  let ticks = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // After the command's name in parentheses: state, ppid, pgrp, …, utime (12th), stime (13th).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / ticksPerSecond;
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

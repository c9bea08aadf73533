#!/usr/bin/env node
// Two trees side by side: `node test/bench/compare-trees.mjs <tree A> <tree B>` (each a checkout
// with node_modules, e.g. a `git worktree` with a link to this one's). Both services run at once,
// each from a copy of its tree taken at the start (servers.mjs: wrangler dev restarts a worker
// whose sources change), and are measured in interleaved rounds, the order swapped every other
// round; it prints each round's figures and B/A, then the median ratio with its spread. On a busy
// machine a ratio of two trees measured so holds where either tree's absolute figure does not
// (docs/performance.md).
//   - COMPARE=batch (default): the batch path, the same kind of batches (workload.mjs) from
//     4 clients: items/s;
//   - COMPARE=compile: the compiler (memory.mjs): in each round a fresh space per tree gets the
//     labelled conversation set, then a late event per session, and every session is compiled
//     again: its events per CPU second of the service's processes (/proc, servers.mjs), which
//     the machine's other load moves least, and per second of wall time; beside them,
//     written-and-compiled events/s.
// Environment: COMPARE_ROUNDS (default 6), COMPARE_BATCHES (batch: batches per tree per round,
// default 60), COMPARE_CUSTOMERS (compile: the set's customers, default 40: about 14,000 events).
import { randomBytes } from "node:crypto";
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { median } from "./figures.mjs";
import { compileRates } from "./memory.mjs";
import { serviceSecrets, snapshotTree, startWrangler, stopAll } from "./servers.mjs";
import { labelledSet } from "./sessions-labelled.mjs";
import { Workload } from "./workload.mjs";

const trees = process.argv.slice(2);
if (trees.length !== 2) throw new Error("usage: compare-trees.mjs <tree A> <tree B>");
const MODE = process.env.COMPARE ?? "batch";
if (!["batch", "compile"].includes(MODE)) throw new Error(`COMPARE must be batch or compile, got ${MODE}`);
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 6);
const BATCHES = Number(process.env.COMPARE_BATCHES ?? 60);
const CUSTOMERS = Number(process.env.COMPARE_CUSTOMERS ?? 40);
const CLIENTS = 4;

const secrets = serviceSecrets();

/** Items a second for `bodies`, sent by `CLIENTS` clients. */
async function rate({ url, headers }, bodies) {
  const started = performance.now();
  let sent = 0;
  const client = async () => {
    for (let body = bodies.shift(); body; body = bodies.shift()) {
      const response = await fetch(url, { method: "POST", headers, body });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 200)}`);
      sent++;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return (sent * 500) / ((performance.now() - started) / 1000);
}

/** `measure(i, round)` for both trees, in the round's order; answers [A, B]. */
async function interleaved(round, measure) {
  const values = [];
  for (const i of round % 2 ? [1, 0] : [0, 1]) values[i] = await measure(i);
  return values;
}

const summary = (name, ratios) =>
  `${name} B/A median ${median(ratios).toFixed(3)} (rounds ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)})`;

async function batchRounds(services) {
  const targets = [];
  for (const service of services) {
    const demo = await seedDemo(service.origin, secrets.OPERATOR_TOKEN);
    const headers = { authorization: `Bearer ${demo.key}`, "content-type": "application/json" };
    targets.push({ url: `${demo.base_url}/v1/batch`, headers });
  }
  const workload = new Workload({ run: randomBytes(4).toString("hex"), batchItems: 500 });
  for (const [i, target] of targets.entries()) await rate(target, workload.bodies(`warm${i}`, 40));
  const ratios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const rates = await interleaved(round, (i) => rate(targets[i], workload.bodies(`r${round}t${i}`, BATCHES)));
    ratios.push(rates[1] / rates[0]);
    console.log(
      `round ${round + 1}: A ${rates[0].toFixed(0)} items/s, B ${rates[1].toFixed(0)}, B/A ${ratios.at(-1).toFixed(3)}`,
    );
  }
  console.log(summary("items/s", ratios));
}

async function compileRounds(services) {
  const set = labelledSet({ seed: 31, customers: CUSTOMERS });
  const warm = labelledSet({ seed: 131, customers: 2 });
  for (const service of services) await compileRates(service, secrets.OPERATOR_TOKEN, warm);
  const ratios = { cpu: [], compile: [], written: [] };
  const line = (name, a, b, ratio) => `${name} A ${a.toFixed(0)}, B ${b.toFixed(0)}, B/A ${ratio.toFixed(3)}`;
  for (let round = 0; round < ROUNDS; round++) {
    const [a, b] = await interleaved(round, (i) => compileRates(services[i], secrets.OPERATOR_TOKEN, set));
    ratios.cpu.push(b.recompile.eventsPerCpuS / a.recompile.eventsPerCpuS);
    ratios.compile.push(b.recompile.eventsPerS / a.recompile.eventsPerS);
    ratios.written.push(b.written.eventsPerS / a.written.eventsPerS);
    const { eventsPerCpuS: cpuA, eventsPerS: wallA } = a.recompile;
    const { eventsPerCpuS: cpuB, eventsPerS: wallB } = b.recompile;
    console.log(
      `round ${round + 1}: ${line("compile events per CPU second", cpuA, cpuB, ratios.cpu.at(-1))}; ${line("events/s", wallA, wallB, ratios.compile.at(-1))}; ${line("written and compiled events/s", a.written.eventsPerS, b.written.eventsPerS, ratios.written.at(-1))}`,
    );
  }
  console.log(summary(`compile events per CPU second (${eventsOf(set)} events)`, ratios.cpu));
  console.log(summary("compile events/s", ratios.compile));
  console.log(summary("written and compiled events/s", ratios.written));
}

const eventsOf = (set) =>
  set.customers.reduce((sum, customer) => sum + customer.sessions.reduce((n, session) => n + session.turns.length, 0), 0);

const snapshots = trees.map((tree) => snapshotTree(tree));
try {
  const services = await Promise.all(
    snapshots.map((snapshot, i) =>
      startWrangler({ label: `tree${i}`, cwd: snapshot.dir, vars: secrets, readyPath: "/v1/openapi.json" }),
    ),
  );
  await (MODE === "compile" ? compileRounds(services) : batchRounds(services));
} finally {
  await stopAll();
  for (const snapshot of snapshots) snapshot.remove();
}

#!/usr/bin/env node
// The batch path of two trees side by side: `node test/bench/compare-trees.mjs <tree A> <tree B>`
// (each a checkout with node_modules, e.g. a `git worktree` with a link to this one's). Both
// services run at once and take the same kind of batches (workload.mjs) in interleaved rounds,
// the order swapped every other round; it prints each round's items/s and B/A, then the median
// ratio with its spread. On a busy machine a ratio of two trees measured so holds where either
// tree's ratio to the minimal path does not (docs/performance.md).
// Environment: COMPARE_ROUNDS (default 6), COMPARE_BATCHES (batches per tree per round, default 60).
import { randomBytes } from "node:crypto";
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { median } from "./figures.mjs";
import { startWrangler, stopAll } from "./servers.mjs";
import { Workload } from "./workload.mjs";

const trees = process.argv.slice(2);
if (trees.length !== 2) throw new Error("usage: compare-trees.mjs <tree A> <tree B>");
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 6);
const BATCHES = Number(process.env.COMPARE_BATCHES ?? 60);
const CLIENTS = 4;

const secrets = Object.fromEntries(
  ["KEY_PEPPER", "JWT_SECRET", "OPERATOR_TOKEN", "UPLOAD_SECRET"].map((name) => [name, randomBytes(32).toString("base64url")]),
);

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

try {
  const services = await Promise.all(
    trees.map((cwd, i) => startWrangler({ label: `tree${i}`, cwd, vars: secrets, readyPath: "/v1/openapi.json" })),
  );
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
    const rates = [0, 0];
    for (const i of round % 2 ? [1, 0] : [0, 1]) rates[i] = await rate(targets[i], workload.bodies(`r${round}t${i}`, BATCHES));
    ratios.push(rates[1] / rates[0]);
    console.log(
      `round ${round + 1}: A ${rates[0].toFixed(0)} items/s, B ${rates[1].toFixed(0)}, B/A ${ratios.at(-1).toFixed(3)}`,
    );
  }
  const [low, high] = [Math.min(...ratios), Math.max(...ratios)];
  console.log(`B/A median ${median(ratios).toFixed(3)} (rounds ${low.toFixed(3)} to ${high.toFixed(3)})`);
} finally {
  await stopAll();
}

// `rate_limit_overhead_ratio` of `npm run bench` (issue 32): what the limits cost the batch path.
// Two spaces on the running service, each of a tenant of its own: one with every limit a write
// meets configured and never reached (config `rate_limits` for the space and the key, and the
// tenant's quotas of events per day, requests per minute and storage), one without any. The
// same kind of batches go to each in interleaved rounds (the order reversed every other round);
// the figure is the median of the rounds' ratios, limited over unlimited items/s.
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { median, overRounds, round } from "./figures.mjs";

/** Limits far above what the bench sends (a few thousand batches a minute at most). */
const NEVER_REACHED = { rate: 1_000_000, quota: Number.MAX_SAFE_INTEGER };

async function call(origin, method, path, { token, operator, body }) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (operator) headers["x-service-operator-token"] = operator;
  const response = await fetch(`${origin}${path}`, { method, headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** A demo space with every limit configured, none to be reached. */
async function limitedSpace(origin, operatorToken) {
  const demo = await seedDemo(origin, operatorToken);
  const { token } = await call(origin, "POST", "/control/v1/auth/login", { body: demo.admin });
  await call(origin, "PUT", `/control/v1/spaces/${demo.space_id}/config`, {
    token,
    body: { values: { rate_limits: { space_per_minute: NEVER_REACHED.rate, key_per_minute: NEVER_REACHED.rate } } },
  });
  const quotas = [
    ["events_per_day", "day"],
    ["requests_per_minute", "minute"],
    ["storage_bytes", "month"],
  ];
  for (const [metric, period] of quotas) {
    await call(origin, "PUT", "/control/v1/quotas", {
      operator: operatorToken,
      body: { tenant_id: demo.tenant_id, metric, limit: NEVER_REACHED.quota, period },
    });
  }
  return demo;
}

/**
 * `load(url, headers, bodies, seconds)` and `assertClean(what, run)` are the ingest rounds' own
 * (run.mjs), so both figures are measured the same way.
 */
export async function rateLimitOverhead(
  origin,
  operatorToken,
  { workload, rounds, roundBatches, warmupBatches, sliceSeconds, load, assertClean, log },
) {
  const spaces = { limited: await limitedSpace(origin, operatorToken), unlimited: await seedDemo(origin, operatorToken) };
  const targets = Object.fromEntries(
    Object.entries(spaces).map(([name, demo]) => [
      name,
      { url: `${demo.base_url}/v1/batch`, headers: { authorization: `Bearer ${demo.key}` } },
    ]),
  );
  for (const [name, target] of Object.entries(targets)) {
    assertClean(
      `${name} warm-up`,
      await load(target.url, target.headers, workload.bodies(`rl-warm-${name}`, warmupBatches), sliceSeconds),
    );
  }
  const runs = { limited: [], unlimited: [] };
  for (let r = 0; r < rounds; r++) {
    const names = r % 2 === 0 ? ["limited", "unlimited"] : ["unlimited", "limited"];
    for (const name of names) {
      const bodies = workload.bodies(`rl${r}${name[0]}`, roundBatches);
      const run = await load(targets[name].url, targets[name].headers, bodies, sliceSeconds);
      assertClean(`${name} space`, run);
      runs[name].push(run);
    }
    log(
      `rate limits, round ${r + 1} of ${rounds}: limited ${Math.round(runs.limited[r].rate)} items/s, unlimited ${Math.round(runs.unlimited[r].rate)}`,
    );
  }
  return {
    ...overRounds(
      "rate_limit_overhead_ratio",
      runs.limited.map((run, r) => run.rate / runs.unlimited[r].rate),
      3,
    ),
    rate_limited_items_per_s: Math.round(median(runs.limited.map((run) => run.rate))),
    rate_unlimited_items_per_s: Math.round(median(runs.unlimited.map((run) => run.rate))),
    rate_limit_batches: round(median(runs.limited.map((run) => run.batches)), 0),
  };
}

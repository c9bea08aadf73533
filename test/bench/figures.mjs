// What the bench's parts share: a JSON POST that must answer 200, percentiles, and figures taken
// over interleaved rounds (a median of the rounds' values, with their spread).

/** Nearest rank: the smallest sample that `p` % of the samples are at or under. */
export const percentile = (sorted, p) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
export const sortedCopy = (list) => [...list].sort((a, b) => a - b);
export const round = (value, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The middle value (the mean of the two middle ones for an even count). */
export function median(list) {
  const sorted = sortedCopy(list);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `[min, max]`, rounded: the spread reported beside a figure as `<key>_spread`. */
export const spread = (list, digits = 1) => [round(Math.min(...list), digits), round(Math.max(...list), digits)];

/** The `p`th percentile of unsorted samples. */
export const pct = (samples, p) => percentile(sortedCopy(samples), p);

/**
 * A percentile taken over every round's samples at once (so it rests on all of them), with
 * `<key>_spread` = [min, max] of the rounds' own percentiles.
 */
export function pooled(key, rounds, p, digits = 1) {
  return {
    [key]: round(pct(rounds.flat(), p), digits),
    [`${key}_spread`]: spread(
      rounds.map((samples) => pct(samples, p)),
      digits,
    ),
  };
}

/**
 * A figure over rounds: `perRound` gives one value per round; the figure is their median and
 * `<key>_spread` their [min, max]. For ratios, the value of a round is target over reference,
 * both measured in that round.
 */
export function overRounds(key, perRound, digits = 2) {
  return { [key]: round(median(perRound), digits), [`${key}_spread`]: spread(perRound, digits) };
}

/** `overRounds` of the ratio `p`th percentile of `target` / of `reference`, round by round. */
export function ratioOverRounds(key, target, reference, p, digits = 2) {
  if (target.length !== reference.length) throw new Error(`${key}: ${target.length} rounds against ${reference.length}`);
  return overRounds(
    key,
    target.map((samples, r) => pct(samples, p) / pct(reference[r], p)),
    digits,
  );
}

/** `POST url` with a bearer key and a JSON body; the parsed answer, or an error naming the status. */
export async function postJson(url, key, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/**
 * Interleaved rounds of sequential probes. In each of `rounds` rounds every probe takes
 * `perRound` samples, one sample of each probe in turn, so that all of them meet whatever the
 * machine is doing at that moment; the order of the probes is reversed every other round, so
 * that none always follows the same one. A probe is `async () => milliseconds` (or `undefined`
 * for an attempt that is not a sample: it is tried again). Each probe is warmed up first with
 * `warmup` untimed calls. A round ends early, after a whole turn, once it has taken
 * `maxRoundSeconds` (a machine too busy for the run's time: the table says how many samples
 * there were). Answers name → one array of samples per round; `onRound(r, samples)` after each.
 */
export async function interleavedRounds({
  probes,
  rounds,
  perRound,
  warmup = 0,
  maxRoundSeconds = Number.POSITIVE_INFINITY,
  onRound = () => {},
}) {
  const names = Object.keys(probes);
  for (const name of names) for (let i = 0; i < warmup; i++) await probes[name]();
  const out = Object.fromEntries(names.map((name) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    const samples = Object.fromEntries(names.map((name) => [name, []]));
    const deadline = performance.now() + maxRoundSeconds * 1000;
    for (let i = 0; i < perRound && performance.now() < deadline; i++) {
      for (const name of order) {
        for (let attempt = 0; ; attempt++) {
          const ms = await probes[name]();
          if (ms !== undefined) {
            samples[name].push(ms);
            break;
          }
          if (attempt >= 10) throw new Error(`probe ${name}: ten attempts in a row gave no sample`);
        }
      }
    }
    for (const name of names) out[name].push(samples[name]);
    onRound(r, samples);
  }
  return out;
}

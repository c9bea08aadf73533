// Timeline probes of `npm run bench` (issue: history and timeline), on a space already seeded
// (the context space: many small profiles and one large one, 50,000 events in about 10,000
// sessions). context.mjs takes their samples in its interleaved rounds, next to the floor:
//   - timeline_page_p99_ms: pages of random profiles: first pages and follow-up pages through
//     `next_cursor` (a profile's 2nd to 4th page);
//   - timeline_large_page_p99_ms: the same for the large profile, follow-up pages going up to
//     about 20 pages deep;
//   - timeline_page_p99_ratio, timeline_large_page_p99_ratio: each over the floor p99 of the same
//     round (GET /v1/whoami), the median of the rounds.

const LIMIT = 50;

/**
 * A probe reading one page per call: a profile's first page from `pick()`, then 1 to `depth`
 * follow-up pages of that profile through its cursor, then the next profile. Each call answers
 * the page's time in ms. `url`: the space's data base URL; `key`: a key with scope `context`.
 */
export function timelineProbe({ url, key, pick, depth }) {
  let handle;
  let cursor = null;
  let left = 0;
  return async () => {
    if (!cursor || left <= 0) {
      handle = pick();
      cursor = null;
      left = 1 + Math.floor(Math.random() * depth);
    } else {
      left--;
    }
    const t0 = performance.now();
    const response = await fetch(`${url}/v1/timeline`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ handle, limit: LIMIT, ...(cursor ? { cursor } : {}) }),
    });
    const text = await response.text();
    const ms = performance.now() - t0;
    if (response.status !== 200) throw new Error(`POST /v1/timeline answered ${response.status}: ${text.slice(0, 300)}`);
    const answer = JSON.parse(text);
    if (!Array.isArray(answer.data)) throw new Error("POST /v1/timeline answered no data");
    cursor = answer.next_cursor;
    return ms;
  };
}

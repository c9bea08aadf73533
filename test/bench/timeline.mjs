// Timeline figures of `npm run bench` (issue: history and timeline), on a space already seeded
// (the context space: many small profiles and one large one, 50,000 events in about 10,000
// sessions). About 300 sequential page reads of `POST /v1/timeline` (150 per figure):
//   - timeline_page_p99_ms: pages of random profiles of `handles`: first pages and
//     follow-up pages through `next_cursor` (a profile's 2nd to 4th page);
//   - timeline_large_page_p99_ms: the same for `largeHandle`, follow-up pages going up to about
//     20 pages deep;
//   - with `floorP99` (GET /v1/whoami measured by the caller at the same time), their ratios to it.

import { percentile, round, sortedCopy } from "./figures.mjs";

// About 300 page reads in all: half for each figure.
const PAGE_READS = 150;
const LIMIT = 50;

/** One page; its time and the parsed answer. */
async function page(url, key, body) {
  const t0 = performance.now();
  const response = await fetch(`${url}/v1/timeline`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const ms = performance.now() - t0;
  if (response.status !== 200) throw new Error(`POST /v1/timeline answered ${response.status}: ${text.slice(0, 300)}`);
  const answer = JSON.parse(text);
  if (!Array.isArray(answer.data)) throw new Error("POST /v1/timeline answered no data");
  return { ms, answer };
}

/**
 * Reads `reads` pages of `pick()`'s profiles: a first page, then up to `depth` follow-up pages
 * of the same profile through its cursor, timing every page.
 */
async function pages(url, key, pick, reads, depth) {
  const times = [];
  while (times.length < reads) {
    const handle = pick();
    let cursor = null;
    const follow = 1 + Math.floor(Math.random() * depth);
    for (let n = 0; n <= follow && times.length < reads; n++) {
      const { ms, answer } = await page(url, key, { handle, limit: LIMIT, ...(cursor ? { cursor } : {}) });
      times.push(ms);
      cursor = answer.next_cursor;
      if (!cursor) break;
    }
  }
  return sortedCopy(times);
}

/**
 * `url`: the space's data base URL (`{base_url}`); `key`: a key with scope `context`;
 * `handles`: identifier objects of seeded profiles; `largeHandle`: the large profile's.
 */
export async function measureTimeline({ url, key, handles, largeHandle, floorP99 }) {
  if (!handles?.length) throw new Error("measureTimeline: no handles");
  const small = await pages(url, key, () => handles[Math.floor(Math.random() * handles.length)], PAGE_READS, 3);
  const large = await pages(url, key, () => largeHandle, PAGE_READS, 20);
  const figures = {
    timeline_page_p99_ms: round(percentile(small, 99)),
    timeline_large_page_p99_ms: round(percentile(large, 99)),
  };
  if (floorP99 > 0) {
    figures.timeline_page_p99_ratio = round(figures.timeline_page_p99_ms / floorP99, 2);
    figures.timeline_large_page_p99_ratio = round(figures.timeline_large_page_p99_ms / floorP99, 2);
  }
  return figures;
}

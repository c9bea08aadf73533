// What the bench's parts share: a JSON POST that must answer 200, and percentiles.

export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
export const sortedCopy = (list) => [...list].sort((a, b) => a - b);
export const round = (value, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

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

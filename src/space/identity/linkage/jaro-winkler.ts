/**
 * Jaro-Winkler similarity (Winkler 1990), the string metric record linkage uses for names: 1 for
 * equal strings, 0 for strings with no character in common, higher when the first characters
 * agree (up to 4, scaled by 0.1) and the strings are alike already (Jaro above 0.7, Winkler's
 * threshold, as in strcmp95: a shared prefix alone does not make two names similar). A small
 * implementation rather than a dependency: the libraries that have it bring far more than these
 * 50 lines (tested against the published values).
 */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return a.length === 0 ? 0 : 1;
  // Characters outside the Basic Multilingual Plane are two UTF-16 units: compared as one.
  const [x, y]: [ArrayLike<string>, ArrayLike<string>] =
    SURROGATE.test(a) || SURROGATE.test(b) ? [Array.from(a), Array.from(b)] : [a, b];
  const jaro = jaroOf(x, y);
  if (jaro <= BOOST_THRESHOLD) return jaro;
  let prefix = 0;
  while (prefix < 4 && prefix < x.length && prefix < y.length && x[prefix] === y[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

const BOOST_THRESHOLD = 0.7;
const SURROGATE = /[\uD800-\uDFFF]/;

/** Scratch space reused across calls: the job compares hundreds of thousands of pairs. */
let matchedB = new Uint8Array(64);
const matchesA: number[] = [];

function jaroOf(a: ArrayLike<string>, b: ArrayLike<string>): number {
  if (a.length === 0 || b.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  if (matchedB.length < b.length) matchedB = new Uint8Array(b.length * 2);
  matchedB.fill(0, 0, b.length);
  matchesA.length = 0;
  for (let i = 0; i < a.length; i++) {
    const from = Math.max(0, i - window);
    const to = Math.min(b.length - 1, i + window);
    for (let j = from; j <= to; j++) {
      if (matchedB[j] === 0 && a[i] === b[j]) {
        matchedB[j] = 1;
        matchesA.push(i);
        break;
      }
    }
  }
  const matches = matchesA.length;
  if (matches === 0) return 0;
  let transpositions = 0;
  let j = 0;
  for (const i of matchesA) {
    while (matchedB[j] === 0) j++;
    if (a[i] !== b[j]) transpositions++;
    j++;
  }
  return (matches / a.length + matches / b.length + (matches - transpositions / 2) / matches) / 3;
}

// The textbook reference for `suggestion_reference_recall` (issue 30): record linkage as the
// recordlinkage toolkit's tutorial does it on FEBRL data, in this process, over the same records
// the service is given. Blocking: records sharing the first three letters of the surname, the
// date of birth, or the postal code. Comparison: the tutorial's six agreements (given name, date
// of birth, suburb and state exact; surname and street by Jaro-Winkler ≥ 0.85); a pair with more
// than three is a match. No weights, no training: what a new user would write first.

function jaroWinkler(a, b) {
  if (a === b) return a.length === 0 ? 0 : 1;
  if (a.length === 0 || b.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const usedB = new Array(b.length).fill(false);
  const matchedA = [];
  for (let i = 0; i < a.length; i++) {
    for (let j = Math.max(0, i - window); j <= Math.min(b.length - 1, i + window); j++) {
      if (!usedB[j] && a[i] === b[j]) {
        usedB[j] = true;
        matchedA.push(a[i]);
        break;
      }
    }
  }
  if (matchedA.length === 0) return 0;
  const matchedB = b.split("").filter((_, j) => usedB[j]);
  const transpositions = matchedA.filter((c, i) => c !== matchedB[i]).length / 2;
  const m = matchedA.length;
  const jaro = (m / a.length + m / b.length + (m - transpositions) / m) / 3;
  let prefix = 0;
  while (prefix < 4 && a[prefix] !== undefined && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

const clean = (value) => (value ?? "").toLowerCase().trim();

/** The pairs of record ids the reference links. */
export function referenceLinkage(records) {
  const rows = records.map((record) => {
    const a = record.attributes;
    return {
      id: record.id,
      given: clean(a.given_name),
      surname: clean(a.surname),
      street: clean(a.street),
      suburb: clean(a.suburb),
      dob: clean(a.date_of_birth),
      postcode: clean(a.postal_code),
      state: clean(a.state),
    };
  });
  const blocks = new Map();
  rows.forEach((row, i) => {
    for (const key of [
      row.surname && `s:${row.surname.slice(0, 3)}`,
      row.dob && `d:${row.dob}`,
      row.postcode && `p:${row.postcode}`,
    ]) {
      if (!key) continue;
      if (!blocks.has(key)) blocks.set(key, []);
      blocks.get(key).push(i);
    }
  });
  const close = (x, y) => (x !== "" && y !== "" && jaroWinkler(x, y) >= 0.85 ? 1 : 0);
  const same = (x, y) => (x !== "" && x === y ? 1 : 0);
  const seen = new Set();
  const links = [];
  for (const members of blocks.values()) {
    for (let m = 0; m < members.length; m++) {
      for (let n = m + 1; n < members.length; n++) {
        const [a, b] = [rows[members[m]], rows[members[n]]];
        const key = a.id < b.id ? `${a.id}|${b.id}` : `${b.id}|${a.id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const agreements =
          same(a.given, b.given) +
          close(a.surname, b.surname) +
          same(a.dob, b.dob) +
          same(a.suburb, b.suburb) +
          same(a.state, b.state) +
          close(a.street, b.street);
        if (agreements > 3) links.push([a.id, b.id]);
      }
    }
  }
  return links;
}

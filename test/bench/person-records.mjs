// Person records for the suggestions figures (issue: answers that hold on real data), generated
// the way the FEBRL data set generator makes its labelled records: originals drawn from name,
// date and address lists with skewed frequencies, then duplicates of some of them in clusters of
// 2 to 5, each duplicate corrupted as people and systems corrupt records: typing errors,
// transposed and dropped letters, OCR-like substitutions, phonetic misspellings, swapped given
// and family names, nicknames, missing fields, moved addresses, dates with day and month
// transposed. Seeded: one seed, one set of records. No real person's data.

const GIVEN = [
  "james",
  "john",
  "robert",
  "michael",
  "william",
  "david",
  "richard",
  "joseph",
  "thomas",
  "charles",
  "christopher",
  "daniel",
  "matthew",
  "anthony",
  "mark",
  "donald",
  "steven",
  "paul",
  "andrew",
  "joshua",
  "kenneth",
  "kevin",
  "brian",
  "george",
  "timothy",
  "ronald",
  "edward",
  "jason",
  "jeffrey",
  "ryan",
  "jacob",
  "gary",
  "nicholas",
  "eric",
  "jonathan",
  "stephen",
  "larry",
  "justin",
  "scott",
  "brandon",
  "benjamin",
  "samuel",
  "gregory",
  "alexander",
  "patrick",
  "frank",
  "raymond",
  "jack",
  "dennis",
  "jerry",
  "liam",
  "noah",
  "oliver",
  "lucas",
  "ethan",
  "harrison",
  "cooper",
  "lachlan",
  "hamish",
  "angus",
  "mary",
  "patricia",
  "jennifer",
  "linda",
  "elizabeth",
  "barbara",
  "susan",
  "jessica",
  "sarah",
  "karen",
  "lisa",
  "nancy",
  "betty",
  "margaret",
  "sandra",
  "ashley",
  "kimberly",
  "emily",
  "donna",
  "michelle",
  "carol",
  "amanda",
  "dorothy",
  "melissa",
  "deborah",
  "stephanie",
  "rebecca",
  "sharon",
  "laura",
  "cynthia",
  "kathleen",
  "amy",
  "angela",
  "shirley",
  "anna",
  "brenda",
  "pamela",
  "emma",
  "nicole",
  "helen",
  "samantha",
  "katherine",
  "christine",
  "debra",
  "rachel",
  "carolyn",
  "janet",
  "catherine",
  "maria",
  "heather",
  "chloe",
  "olivia",
  "charlotte",
  "isabella",
  "mia",
  "ava",
  "grace",
  "ruby",
  "matilda",
  "zoe",
  "aisha",
  "mohammed",
  "wei",
  "mei",
  "hiroshi",
  "yuki",
  "priya",
  "arjun",
  "sofia",
  "mateo",
  "lukas",
  "jana",
  "pieter",
  "ingrid",
  "siobhan",
  "niamh",
  "dimitri",
  "elena",
  "tariq",
  "fatima",
];

const FAMILY = [
  "smith",
  "jones",
  "williams",
  "brown",
  "wilson",
  "taylor",
  "johnson",
  "white",
  "martin",
  "anderson",
  "thompson",
  "nguyen",
  "thomas",
  "walker",
  "harris",
  "lee",
  "ryan",
  "robinson",
  "kelly",
  "king",
  "davis",
  "wright",
  "evans",
  "roberts",
  "green",
  "hall",
  "wood",
  "jackson",
  "clarke",
  "patel",
  "khan",
  "lewis",
  "james",
  "phillips",
  "mason",
  "mitchell",
  "rose",
  "davies",
  "rodriguez",
  "cox",
  "alexander",
  "morgan",
  "moore",
  "young",
  "campbell",
  "stewart",
  "hughes",
  "edwards",
  "baker",
  "turner",
  "collins",
  "parker",
  "cook",
  "murphy",
  "bell",
  "ward",
  "watson",
  "morris",
  "price",
  "bennett",
  "gray",
  "russell",
  "wallace",
  "hunt",
  "palmer",
  "mills",
  "holmes",
  "fraser",
  "chapman",
  "reid",
  "fletcher",
  "webb",
  "simpson",
  "marshall",
  "ellis",
  "harrison",
  "gibson",
  "mcdonald",
  "cruz",
  "murray",
  "graham",
  "hamilton",
  "graves",
  "sullivan",
  "dixon",
  "burke",
  "oconnor",
  "doyle",
  "lynch",
  "byrne",
  "chen",
  "wang",
  "li",
  "zhang",
  "liu",
  "tran",
  "le",
  "pham",
  "huang",
  "wu",
  "schmidt",
  "muller",
  "schneider",
  "fischer",
  "weber",
  "meyer",
  "wagner",
  "becker",
  "hoffmann",
  "koch",
  "rossi",
  "russo",
  "ferrari",
  "esposito",
  "bianchi",
  "romano",
  "colombo",
  "ricci",
  "marino",
  "greco",
  "papadopoulos",
  "nikolaidis",
  "kowalski",
  "nowak",
  "wisniewski",
  "novak",
  "horvath",
  "kovacs",
  "jensen",
  "hansen",
  "andersen",
  "larsen",
  "nielsen",
  "svensson",
  "johansson",
  "karlsson",
  "lindqvist",
  "virtanen",
  "korhonen",
  "makinen",
  "dubois",
  "lefebvre",
  "moreau",
  "laurent",
  "girard",
  "garcia",
  "martinez",
  "lopez",
  "gonzalez",
  "hernandez",
  "sanchez",
  "ramirez",
  "torres",
  "flores",
  "rivera",
  "gomez",
  "diaz",
  "reyes",
  "morales",
  "ortiz",
  "kaur",
  "singh",
  "sharma",
  "gupta",
  "kumar",
  "das",
  "bose",
  "iyer",
  "menon",
  "pillai",
  "tanaka",
  "suzuki",
  "takahashi",
  "watanabe",
  "ito",
  "yamamoto",
  "nakamura",
  "kobayashi",
  "kato",
  "yoshida",
  "oneill",
  "fitzgerald",
  "macdonald",
  "mackenzie",
  "robertson",
  "henderson",
  "paterson",
  "sutherland",
  "ferguson",
  "duncan",
  "abbott",
  "ashworth",
  "blackwood",
  "cartwright",
  "dunmore",
  "eastwood",
  "fairweather",
  "goodwin",
  "hargreaves",
  "illingworth",
];

const NICKNAMES = {
  james: ["jim", "jimmy", "jamie"],
  john: ["jack", "johnny"],
  robert: ["bob", "rob", "bobby"],
  michael: ["mike", "mick"],
  william: ["bill", "will", "billy"],
  richard: ["rick", "dick", "richie"],
  joseph: ["joe", "joey"],
  thomas: ["tom", "tommy"],
  charles: ["charlie", "chuck"],
  christopher: ["chris"],
  daniel: ["dan", "danny"],
  matthew: ["matt"],
  anthony: ["tony"],
  steven: ["steve"],
  andrew: ["andy", "drew"],
  kenneth: ["ken"],
  timothy: ["tim"],
  edward: ["ted", "eddie", "ed"],
  nicholas: ["nick"],
  jonathan: ["jon"],
  benjamin: ["ben"],
  samuel: ["sam"],
  gregory: ["greg"],
  alexander: ["alex", "sasha"],
  patrick: ["pat", "paddy"],
  raymond: ["ray"],
  elizabeth: ["liz", "beth", "betty", "lisa"],
  margaret: ["maggie", "peggy", "meg"],
  patricia: ["pat", "trish"],
  jennifer: ["jen", "jenny"],
  susan: ["sue", "suzy"],
  jessica: ["jess"],
  rebecca: ["becky"],
  deborah: ["deb", "debbie"],
  katherine: ["kate", "kathy"],
  catherine: ["cathy", "cate"],
  samantha: ["sam"],
  christine: ["chris", "tina"],
  pamela: ["pam"],
  kimberly: ["kim"],
  stephanie: ["steph"],
};

const STREETS = [
  "high",
  "church",
  "station",
  "main",
  "park",
  "victoria",
  "george",
  "king",
  "queen",
  "william",
  "elizabeth",
  "albert",
  "bridge",
  "hill",
  "mill",
  "spring",
  "railway",
  "river",
  "forest",
  "ocean",
  "wattle",
  "banksia",
  "acacia",
  "jacaranda",
  "eucalyptus",
  "kurrajong",
  "boronia",
  "waratah",
  "grevillea",
  "myrtle",
  "macquarie",
  "bligh",
  "phillip",
  "hunter",
  "collins",
  "flinders",
  "swanston",
  "bourke",
  "lonsdale",
  "spencer",
  "kent",
  "sussex",
  "clarence",
  "pitt",
  "castlereagh",
  "oxford",
  "cambridge",
  "beaconsfield",
  "glenhuntly",
  "wellington",
  "nelson",
  "wolseley",
  "darling",
  "murray",
  "lachlan",
  "goulburn",
  "campbell",
  "parramatta",
  "canterbury",
  "pacific",
];
const STREET_TYPES = ["street", "road", "avenue", "drive", "place", "crescent", "court", "lane", "parade", "terrace"];
const ABBREVIATED = {
  street: "st",
  road: "rd",
  avenue: "ave",
  drive: "dr",
  place: "pl",
  crescent: "cres",
  court: "ct",
  lane: "ln",
  parade: "pde",
  terrace: "tce",
};
const PLACE_STEMS = [
  "ash",
  "bay",
  "beech",
  "black",
  "blue",
  "brook",
  "bur",
  "cal",
  "car",
  "clover",
  "cole",
  "coral",
  "dale",
  "elm",
  "fern",
  "glen",
  "gold",
  "green",
  "hazel",
  "heath",
  "holly",
  "iron",
  "kings",
  "lake",
  "lang",
  "lark",
  "maple",
  "marsh",
  "mel",
  "mill",
  "moss",
  "oak",
  "pine",
  "red",
  "rich",
  "rose",
  "sand",
  "silver",
  "stone",
  "sun",
  "thorn",
  "wat",
  "west",
  "wil",
];
const PLACE_ENDS = [
  "field",
  "ford",
  "ton",
  "wood",
  "vale",
  "hurst",
  "mere",
  "leigh",
  "bury",
  "dale",
  "brook",
  "ridge",
  " heights",
  " park",
  " north",
  " south",
];
const STATES = ["nsw", "vic", "qld", "wa", "sa", "tas", "act", "nt"];
const STATE_WEIGHTS = [32, 26, 20, 10, 7, 2, 2, 1];

/** mulberry32: a small seeded generator, so that one seed gives one set of records everywhere. */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks from a list with Zipf-like frequencies (the first most common), as names are. */
function zipf(rand, list, exponent = 0.9) {
  const weights = list.map((_, i) => 1 / (i + 1) ** exponent);
  const total = weights.reduce((a, b) => a + b, 0);
  return () => {
    let r = rand() * total;
    for (let i = 0; i < list.length; i++) {
      r -= weights[i];
      if (r <= 0) return list[i];
    }
    return list[list.length - 1];
  };
}

function places(rand, count) {
  const out = [];
  const names = new Set();
  const codes = new Set();
  const state = weighted(rand, STATES, STATE_WEIGHTS);
  while (out.length < count) {
    const name = pick(rand, PLACE_STEMS) + pick(rand, PLACE_ENDS);
    if (names.has(name)) continue;
    const st = state();
    const first = { nsw: "2", act: "2", vic: "3", qld: "4", sa: "5", wa: "6", tas: "7", nt: "0" }[st];
    let code;
    do code = `${first}${String(Math.floor(rand() * 1000)).padStart(3, "0")}`;
    while (codes.has(code));
    names.add(name);
    codes.add(code);
    out.push({ locality: name, postcode: code, state: st });
  }
  return out;
}

function weighted(rand, list, weights) {
  const total = weights.reduce((a, b) => a + b, 0);
  return () => {
    let r = rand() * total;
    for (let i = 0; i < list.length; i++) {
      r -= weights[i];
      if (r <= 0) return list[i];
    }
    return list[list.length - 1];
  };
}

const pick = (rand, list) => list[Math.floor(rand() * list.length)];
const pad = (n) => String(n).padStart(2, "0");

const KEYBOARD = {
  a: "qwsz",
  b: "vghn",
  c: "xdfv",
  d: "serfcx",
  e: "wsdr",
  f: "drtgvc",
  g: "ftyhbv",
  h: "gyujnb",
  i: "ujko",
  j: "huikmn",
  k: "jiolm",
  l: "kop",
  m: "njk",
  n: "bhjm",
  o: "iklp",
  p: "ol",
  q: "wa",
  r: "edft",
  s: "awedxz",
  t: "rfgy",
  u: "yhji",
  v: "cfgb",
  w: "qase",
  x: "zsdc",
  y: "tghu",
  z: "asx",
};
const OCR = [
  ["m", "rn"],
  ["rn", "m"],
  ["d", "cl"],
  ["cl", "d"],
  ["o", "0"],
  ["l", "1"],
  ["i", "1"],
  ["s", "5"],
  ["b", "8"],
  ["g", "9"],
  ["e", "c"],
  ["h", "b"],
  ["u", "v"],
  ["w", "vv"],
];
const PHONETIC = [
  ["ph", "f"],
  ["f", "ph"],
  ["ck", "k"],
  ["c", "k"],
  ["k", "c"],
  ["ee", "ea"],
  ["ea", "ee"],
  ["ie", "y"],
  ["y", "ie"],
  ["th", "t"],
  ["ou", "ow"],
  ["ei", "ie"],
  ["ie", "ei"],
  ["s", "z"],
  ["z", "s"],
  ["son", "sen"],
  ["sen", "son"],
  ["mc", "mac"],
  ["mac", "mc"],
  ["ll", "l"],
  ["tt", "t"],
  ["nn", "n"],
];

/** One typing error: a neighbouring key, a letter doubled or dropped, two letters transposed. */
function typo(rand, word) {
  if (word.length < 2) return word;
  const i = Math.floor(rand() * word.length);
  const roll = rand();
  if (roll < 0.3) {
    const near = KEYBOARD[word[i]];
    return near ? word.slice(0, i) + pick(rand, near) + word.slice(i + 1) : word;
  }
  if (roll < 0.55 && i < word.length - 1) return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  if (roll < 0.8) return word.slice(0, i) + word.slice(i + 1);
  return word.slice(0, i) + word[i] + word.slice(i);
}

function substitute(rand, word, table) {
  const options = table.filter(([from]) => word.includes(from));
  if (options.length === 0) return typo(rand, word);
  const [from, to] = pick(rand, options);
  const at = [];
  for (let i = word.indexOf(from); i >= 0; i = word.indexOf(from, i + 1)) at.push(i);
  const i = pick(rand, at);
  return word.slice(0, i) + to + word.slice(i + from.length);
}

/** A name as a person or a system mistypes it. */
function corruptName(rand, word) {
  const roll = rand();
  if (roll < 0.55) return typo(rand, word);
  if (roll < 0.75) return substitute(rand, word, PHONETIC);
  return substitute(rand, word, OCR);
}

function corruptDigits(rand, digits) {
  const i = Math.floor(rand() * digits.length);
  if (rand() < 0.7) return digits.slice(0, i) + String(Math.floor(rand() * 10)) + digits.slice(i + 1);
  if (i < digits.length - 1) return digits.slice(0, i) + digits[i + 1] + digits[i] + digits.slice(i + 2);
  return digits;
}

const capital = (word) => word.replace(/(^|[ -])\p{L}/gu, (c) => c.toUpperCase());

/**
 * `count` records, about `duplicateShare` of them duplicates of another record of their cluster
 * (clusters of 2 to 5). Each record: `id`, `cluster` (records of one cluster are one person) and
 * `attributes` as a CRM's `customer.updated` carries them.
 */
export function personRecords({ count = 5_000, seed = 30, duplicateShare = 0.4 } = {}) {
  const rand = random(seed);
  const given = zipf(rand, GIVEN, 0.7);
  const family = zipf(rand, FAMILY, 0.8);
  const towns = places(rand, Math.max(50, Math.round(count / 15)));
  const town = zipf(rand, towns, 0.5);
  const person = () => {
    const place = town();
    const year = 1935 + Math.floor(rand() * 70);
    const month = 1 + Math.floor(rand() * 12);
    const day = 1 + Math.floor(rand() * 28);
    return {
      given: given(),
      family: family(),
      dob: `${year}${pad(month)}${pad(day)}`,
      number: String(1 + Math.floor(rand() ** 2 * 300)),
      street: `${pick(rand, STREETS)} ${pick(rand, STREET_TYPES)}`,
      ...place,
    };
  };
  const duplicates = Math.round(count * duplicateShare);
  const clusters = [];
  let planned = 0;
  while (planned < duplicates) {
    const size = Math.min(2 + Math.floor(rand() ** 1.5 * 4), duplicates - planned + 1);
    clusters.push(size);
    planned += size - 1;
  }
  const records = [];
  let cluster = 0;
  for (const size of clusters) {
    const original = person();
    records.push(record(original, cluster, rand, false));
    for (let i = 1; i < size; i++) records.push(record(original, cluster, rand, true));
    cluster++;
  }
  while (records.length < count) records.push(record(person(), cluster++, rand, false));
  // Shuffled, so that records of one cluster do not arrive together.
  for (let i = records.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [records[i], records[j]] = [records[j], records[i]];
  }
  records.forEach((entry, i) => {
    entry.id = `r-${i}`;
  });
  return records;
}

function record(original, cluster, rand, duplicate) {
  const p = { ...original };
  if (duplicate) {
    const changes = 1 + Math.floor(rand() * 3);
    for (let c = 0; c < changes; c++) corrupt(p, rand);
  }
  const attributes = {};
  if (p.given !== null && p.family !== null) attributes.name = capital(`${p.given} ${p.family}`);
  if (p.given !== null) attributes.given_name = capital(p.given);
  if (p.family !== null) attributes.surname = capital(p.family);
  if (p.dob !== null) attributes.date_of_birth = `${p.dob.slice(0, 4)}-${p.dob.slice(4, 6)}-${p.dob.slice(6, 8)}`;
  if (p.postcode !== null) attributes.postal_code = p.postcode;
  if (p.street !== null) attributes.street = capital(`${p.number} ${p.street}`);
  if (p.locality !== null) attributes.suburb = capital(p.locality);
  if (p.state !== null) attributes.state = p.state.toUpperCase();
  return { cluster, attributes };
}

/** One corruption of a duplicate, drawn with the frequencies FEBRL's defaults give them. */
function corrupt(p, rand) {
  const roll = rand();
  if (roll < 0.22) {
    if (p.given !== null) p.given = corruptName(rand, p.given);
  } else if (roll < 0.44) {
    if (p.family !== null) p.family = corruptName(rand, p.family);
  } else if (roll < 0.5) {
    [p.given, p.family] = [p.family, p.given];
  } else if (roll < 0.56) {
    const nicks = p.given !== null ? NICKNAMES[p.given] : undefined;
    if (nicks) p.given = pick(rand, nicks);
    else if (p.given !== null) p.given = corruptName(rand, p.given);
  } else if (roll < 0.64) {
    // A field left empty.
    const field = pick(rand, ["given", "family", "dob", "postcode", "street", "locality", "state"]);
    p[field] = null;
  } else if (roll < 0.72) {
    // Moved: a new address, the person otherwise the same.
    const towns = places(rand, 1)[0];
    Object.assign(p, towns, {
      number: String(1 + Math.floor(rand() * 300)),
      street: `${pick(rand, STREETS)} ${pick(rand, STREET_TYPES)}`,
    });
  } else if (roll < 0.8) {
    if (p.dob !== null) {
      const [year, month, day] = [p.dob.slice(0, 4), p.dob.slice(4, 6), p.dob.slice(6, 8)];
      p.dob = Number(day) <= 12 && day !== month ? `${year}${day}${month}` : corruptDigits(rand, p.dob);
    }
  } else if (roll < 0.87) {
    if (p.dob !== null) p.dob = corruptDigits(rand, p.dob);
  } else if (roll < 0.92) {
    if (p.postcode !== null) p.postcode = corruptDigits(rand, p.postcode);
  } else if (roll < 0.97) {
    if (p.street !== null) {
      const [name, type] = p.street.split(" ");
      p.street = rand() < 0.5 ? `${corruptName(rand, name)} ${type}` : `${name} ${ABBREVIATED[type] ?? type}`;
    }
  } else if (p.locality !== null) {
    p.locality = corruptName(rand, p.locality);
  }
}

/** How many pairs of records are one person (records of one cluster, two by two). */
export function truePairs(records) {
  const sizes = new Map();
  for (const { cluster } of records) sizes.set(cluster, (sizes.get(cluster) ?? 0) + 1);
  let pairs = 0;
  for (const size of sizes.values()) pairs += (size * (size - 1)) / 2;
  return pairs;
}

/** Pairwise precision and recall of `found` pairs of record ids against the clusters. */
export function pairwise(records, found) {
  const clusterOf = new Map(records.map((entry) => [entry.id, entry.cluster]));
  let right = 0;
  let counted = 0;
  const seen = new Set();
  for (const [a, b] of found) {
    const key = a < b ? `${a}|${b}` : `${b}|${a}`;
    if (seen.has(key)) continue;
    seen.add(key);
    counted++;
    if (clusterOf.get(a) === clusterOf.get(b)) right++;
  }
  const all = truePairs(records);
  return { precision: counted === 0 ? 1 : right / counted, recall: all === 0 ? 1 : right / all, found: counted, pairs: all };
}

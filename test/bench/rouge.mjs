// ROUGE-1 recall as the memory figures take it (issue 31): the share of a reference summary's
// content words that a candidate holds, counted with multiplicity and clipped (a word twice in
// the reference counts twice only if the candidate has it twice):
//   recall = Σ_w min(count_ref(w), count_cand(w)) / Σ_w count_ref(w).
// Content words: the text lower-cased, accents removed, "'s" and apostrophes dropped, split on
// anything but letters and digits; stop words out (the list below: NLTK's English list, the one
// most ROUGE setups use); each word of the letters a to z reduced to its Porter2 (Snowball
// English) stem, the same on both sides, so that "delivered" meets "delivery". A token with
// digits stays whole ("£20" is "20", "SAVE18" is "save18").
import { stem } from "porter2";

const STOP_WORDS = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself " +
    "it its itself they them their theirs themselves what which who whom this that these those am is are was were be " +
    "been being have has had having do does did doing a an the and but if or because as until while of at by for with " +
    "about against between into through during before after above below to from up down in out on off over under " +
    "again further then once here there when where why how all any both each few more most other some such no nor not " +
    "only own same so than too very s t can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn " +
    "hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn"
  ).split(" "),
);

/** A text's content words, stemmed, in order. */
export function contentWords(text) {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/['’]s\b/g, "")
    .replace(/['’]/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "" && !STOP_WORDS.has(word))
    .map((word) => (/^[a-z]+$/.test(word) ? stem(word) : word));
}

const counts = (words) => {
  const out = new Map();
  for (const word of words) out.set(word, (out.get(word) ?? 0) + 1);
  return out;
};

/** ROUGE-1 recall of `candidate` against `reference` (0 for a reference without content words). */
export function rouge1Recall(candidate, reference) {
  const wanted = counts(contentWords(reference));
  const held = counts(contentWords(candidate));
  let total = 0;
  let matched = 0;
  for (const [word, n] of wanted) {
    total += n;
    matched += Math.min(n, held.get(word) ?? 0);
  }
  return total === 0 ? 0 : matched / total;
}

/** The lead-3 reference: the text of a session's first three turns (`{text}` each). */
export const leadThree = (turns) =>
  turns
    .slice(0, 3)
    .map((turn) => turn.text)
    .join(" ");

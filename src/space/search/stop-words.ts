/**
 * English function words: in plain mode they carry no weight, neither in a query nor in what is
 * indexed (docs/api/search.md). The Snowball English list (articles, pronouns, auxiliaries,
 * prepositions, conjunctions, question words, a few quantifiers and adverbs), written as the
 * tokenizer cuts it: "don't" is the tokens `don` and `t`, so the pieces of contractions are here
 * too. Added: the modals it leaves out (`can`, `will`, `shall`, `might`, `must`; a tin can or a
 * last will is rare in support) and `us`, `whose`, `just`. `may` stays a word: it is also the month.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at
   be because been before being below between both but by
   can cannot could did do does doing down during each few for from further
   had has have having he her here hers herself him himself his how
   i if in into is it its itself just me might more most must my myself
   no nor not of off on once only or other ought our ours ourselves out over own
   same shall she should so some such than that the their theirs them themselves then there these they this those
   through to too under until up us very was we were what when where which while who whom whose why will with would
   you your yours yourself yourselves
   s t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn mustn needn shan`
    .split(/\s+/)
    .filter(Boolean),
);

import { termsOf } from "../search/tokens";
import { contentStems, contentStemsOf } from "./content-words";
import type { MemoryEvent } from "./memory-event";
import { type Sentence, sentencesOf } from "./sentences";

/**
 * What a sentence of chat does (docs/api/memory.md "Episodes"): asks, wants something, makes
 * small talk, puts an answer off, acknowledges, closes the conversation, or says something about
 * the speaker. Read from the words alone, in English; a sentence can do several.
 */
export interface Reading extends Sentence {
  /** Its content words' stems (`contentStemsOf`), distinct, in order. */
  stems: string[];
  question: boolean;
  /** A question, or a sentence that wants something ("I need…", "can you…", "please…"). */
  request: boolean;
  /** Greetings, openings, thanks, goodbyes, "how are you?", "are you there?": nothing about the matter. */
  smallTalk: boolean;
  /** "Let me check", "one moment", "I'll get back to you": an answer put off. */
  deferral: boolean;
  /** A deferral past this conversation: "I'll get back to you", "someone will be in touch". */
  later: boolean;
  /** "Ok", "got it", "I understand", "sorry to hear that": no answer. */
  acknowledgement: boolean;
  /** "Anything else?", "have a nice day": the conversation ending. */
  closing: boolean;
  /** Speaks of the speaker: "I", "my", "we", "our" (0 none, 1 in the sentence, 2 as its subject). */
  firstPerson: 0 | 1 | 2;
  /** Says something about the matter: a content word, and none of small talk, deferral, acknowledgement or closing. */
  substantive: boolean;
}

const QUESTION = /\?[^\p{L}\p{N}]*$/u;
/**
 * A question without its question mark, as chat and voice transcripts write them ("where is my
 * parcel", "um can you check"): a question word and a verb, or a verb and its subject, first.
 */
const UNMARKED_QUESTION =
  /^((um|uh|er|erm|so|and|but|well|ok|okay|oh|hi|hey|also|right|yeah|sorry) )*((where|when|what|why|how|who|which|whose) (is|are|was|were|do|does|did|can|could|will|would|should|has|have|am)|(is|are|was|were|do|does|did|can|could|will|would|should|has|have|am) (you|u|i|it|my|the|there|this|that|we|they|he|she|your|our|any|anyone|anybody))\b/;
/** How many of a sentence's last characters say how it ends (`QUESTION`, `STATED`). */
const END_CHARACTERS = 32;
/** A sentence closed by a full stop or an exclamation mark was written as no question. */
const STATED = /[.!][^\p{L}\p{N}]*$/u;
const REQUEST =
  /\b(i (really )?(want|wanna|need)|i'?d (like|love)|i would (like|love)|i'?m (looking for|trying to)|can (you|u|i|we)|could (you|u|i|we)|would you|will you|please|pls|plz|help me|is it possible|how (do|can|would) i)\b/;

/** Whole sentences of small talk (`SMALL_TALK`) and acknowledgement hold at most this many content words ("busy day for you today?"). */
const SMALL_TALK_WORDS = 4;

/** A greeting, with a name: "hi", "hello there", "good morning Sam". */
const GREETING_PATTERN =
  "(hi|hello|hey|hiya|heya|howdy|yo|greetings|good (morning|afternoon|evening|day)|morning|evening)( (there|all|again|team|guys|everyone))?( \\p{L}+)?";
const GREETING = new RegExp(`^${GREETING_PATTERN}$`, "u");

/** Whole sentences of small talk, as normalized (`normalized`): greetings (with a name), "how are you", thanks, goodbyes, interjections. */
const SMALL_TALK = new RegExp(
  [
    GREETING_PATTERN,
    "(hi |hello |hey )?(how are (you|u|ya|things)( doing)?( today)?|how'?s it going|how (have|'?ve) you been|how('?s| is| was) (your|ur) (day|week|weekend|morning)( going| been)?( so far)?|did (you|u) have a (nice|good|great|lovely) (day|weekend|week|time|holiday|break)|what'?s up|sup|(are )?(you|u) (still )?there|is (anyone|anybody|someone) (there|here)|anyone (there|here))",
    "((thanks|cheers|thank you|ok|great)( have a (nice|good|great|lovely) (day|weekend|evening))? )?((a |had a |having a )?(busy|good|nice|long|quiet) (day|week|weekend|morning)( for you| today| so far)?|(doing|done) \\p{L}+ (nice|fun|special)( this weekend| today| tonight)?|any (nice |fun |big )?plans( for the weekend| today| tonight)?|are (you|u) a (real )?(person|human|bot|robot))",
    "(i'?m |all |am )?(good|fine|great|ok|okay|well|not bad|very well|doing (well|good|great|fine))( thanks| thank you| thx)?( and you| you| how about you| and yourself)?",
    "((ok|okay|great|perfect|cool|oh) )?(thanks|thank you|thx|ty|tysm|cheers|many thanks)( (so|very) much| a lot| again| anyway)?( for( your| the| all)? (help|support|time|assistance|quick reply|reply|patience|everything|that|this|info|information))?",
    "(kind |best |warm |many )?(regards|wishes|thanks|cheers|sincerely|yours sincerely|yours truly|all the best|best)( \\p{L}+)?",
    "((ok|okay|thanks|thank you) )?(bye|goodbye|see you|see ya|cya|take care|talk soon|later|have a (nice|good|great|lovely|wonderful) (day|one|evening|weekend))( (bye|now|then|soon|later|tomorrow))?",
    "(lol|lmao|haha\\p{L}*|hehe|omg|wow|yay|woohoo|ok|okay|k|kk|cool|great|nice|awesome|perfect|sure|yes|yeah|yep|yup|no|nope|nah|hmm+|oh|ah|oops|alright|right)( (ok|okay|great|thanks|then|cool|sure|yes|no|lol))*",
  ]
    .map((pattern) => `^${pattern}$`)
    .join("|"),
  "u",
);

/** An agent's opening: "how can I help you today?", "thanks for getting in touch", "you're through to Ravi". */
const OPENING =
  /\b(how (can|may) (i|we) help|what can (i|we) do for you|thanks? (you )?for (getting in touch|reaching out|contacting|calling|your (message|email|patience))|you'?re (through|speaking|chatting) to|this is (the|your)|my name is|\p{L}+ here)\b/u;
const OPENING_WORDS = stemSet(
  "help today support assistant virtual touch reaching contacting calling message email team name service customer chat",
);

/** Thanks that say nothing else: "thanks so much, you've been really helpful!". */
const THANKS = /^(thanks|thank you|thx|ty|cheers|many thanks|much appreciated)\b/;
const THANKING_WORDS = stemSet("help helpful much lot time support assistance quick reply patience everything again kind");

/** Putting an answer off: "let me check", "one moment", "I'll get back to you", "someone will be in touch". */
const DEFERRAL =
  /\b(let me (just )?(check|look|see|find|verify|confirm|pull|ask|get|review|transfer|escalate)|i('?ll| will) (just |need to |have to )?(check|look|find out|get back|come back|update|let you know|ask|escalate|transfer|follow up|confirm|chase|email|call|message)|(one|a|just a) (moment|minute|sec|second|mo)\b|give me (a|one|just a) (moment|minute|sec|second)|bear with (me|us)|please (hold|wait)|hold on|hang on|(get|come|write|email|call) (you )?back|back to you|looking (into|it up)|checking (now|on|that|this|it|with)|i'?m checking|i am checking|allow me|be in touch|not sure|i don'?t know|can'?t see)\b/;
/** Putting an answer off past the conversation, not for a moment. */
const LATER =
  /\b((get|come|write|email|call|message|text) (you )?back|back to you|be in touch|(email|call|message|text|contact) you( later| tomorrow| when| once| as soon)|follow up|let you know|(tomorrow|next week|within \p{N}+ (hours|days)))\b/u;
/** The words that come with putting off (`DEFERRAL`): a sentence that says more than one other word says something. */
const DEFERRING = stemSet(
  "check look find ask see get back team moment minute second sec hold wait touch email call message update confirm follow chase warehouse manager supervisor colleague know need one pull account system details record file now today shortly soon question good sure transfer escalate review verify someone help quick just bit",
);
const ACKNOWLEDGEMENT =
  /^(ok|okay|sure|of course|certainly|absolutely|right|alright|got it|i see|noted|understood|no problem|no worries|great|perfect|fine|thanks|thank you|cool|i understand|makes sense|good)( (thanks|thank you|then|sir|madam|noted|got it|sure))*$/;
/** Sympathy, thanks for being told, "noted": no answer when it says little else (`ACKNOWLEDGING`); something done is one. */
const ACKNOWLEDGING_PHRASE =
  /\b(i (completely |totally |fully )?understand|sorry (to hear|about|for)|i'?m (so |very |really )?sorry|i apologi[sz]e|apologies for|thanks? (you )?for (letting|telling|sharing|your patience|waiting|reaching out|contacting|the info|the information)|good to know|noted|take your time|no rush|no problem|been (very |really )?busy)\b/;
const ACKNOWLEDGING = stemSet(
  "let know tell share note hear understand frustration inconvenience wait waiting apologise apologize busy week time rush info information good patience reaching contacting thanks",
);
/** "Anything else?", "have a nice day": the conversation ending, when it says little else (`CLOSING_WORDS`). */
const CLOSING =
  /\b(anything else|something else|is that all|have a (nice|good|great|lovely|wonderful) (day|one|evening|weekend|afternoon)|bye|goodbye|take care|glad (i|to|we) (could )?help|happy to help|you'?re welcome|my pleasure|thanks? (you )?for (contacting|reaching|choosing|chatting|your patience|waiting))\b/;
const CLOSING_WORDS = stemSet(
  "help today day contact reaching choosing chatting waiting patience pleasure welcome weekend evening afternoon morning now",
);

/**
 * A customer's wrap-up that names a word of the matter ("perfect, that's all I needed", "sounds
 * good", "that helps a lot", "all sorted"), at the start of the sentence after interjections (not
 * "still not sorted"), when it says nothing else (`WRAPPING_UP`).
 */
const WRAP_UP =
  /^((ok|okay|great|perfect|cool|brilliant|lovely|excellent|awesome|fantastic|nice|good|right|alright|no|nope|oh|ah|thanks|thank you|cheers) )*(that'?s (all|everything|it|great|perfect|brilliant|fine)|that is (all|everything|it)|(that|this|it) (helps|helped|answers|answered|works|worked|makes sense)|sounds (good|great|perfect|fine|lovely)|(all )?sorted|all (good|set|clear|done)|(i'?m|i am|we'?re|we are) (all )?(set|sorted)|great news|got it)\b/;
const WRAPPING_UP = stemSet("need know today now help lot question answer sound sorted set news work much");

/** Stems of a list of words, as `contentStemsOf` makes them. */
function stemSet(words: string): ReadonlySet<string> {
  return new Set(contentStemsOf(words));
}

/** Whether a sentence says at most one content word besides those that come with what it does. */
function saysLittleBeyond(stems: readonly string[], usual: ReadonlySet<string>): boolean {
  let other = 0;
  for (const stem of stems) if (!usual.has(stem) && ++other > 1) return false;
  return true;
}

const FIRST_PERSON: ReadonlySet<string> = new Set([
  "i",
  "me",
  "my",
  "mine",
  "myself",
  "we",
  "us",
  "our",
  "ours",
  "ourselves",
  "im",
  "ive",
]);
const SUBJECT = /^(i|my|we|our|im|ive|mine|me and)\b/;

/** The sentence after its last comma, colon or semicolon ("oh wait, one more thing: do you deliver on Sundays"), normalized. */
const lastClause = (text: string) => {
  const at = Math.max(text.lastIndexOf(","), text.lastIndexOf(":"), text.lastIndexOf(";"));
  return at < 0 ? "" : normalized(text.slice(at + 1));
};

/** Lower case, typographic apostrophes made plain, other punctuation and emoji turned to spaces. */
export function normalized(text: string): string {
  const lower = text.toLowerCase();
  if (!NOT_ASCII.test(lower)) return lower.replace(NOT_ASCII_WORD, " ").trim();
  return (TYPOGRAPHIC.test(lower) ? lower.replace(TYPOGRAPHIC_ALL, "'") : lower).replace(NOT_WORD, " ").trim();
}

const NOT_ASCII = /[\u0080-\uffff]/;
/** `NOT_WORD` for ASCII text, without Unicode properties. */
const NOT_ASCII_WORD = /[^a-z0-9']+/g;

const TYPOGRAPHIC = /[’‘`]/;
const TYPOGRAPHIC_ALL = /[’‘`]/g;
/** Runs of anything but letters, digits and apostrophes (whitespace included) become one space. */
const NOT_WORD = /[^\p{L}\p{N}']+/gu;

/** The sentences of a text as read (`Reading`). Never throws. */
export function readingsOf(text: string | null): Reading[] {
  return sentencesOf(text).map(readSentence);
}

/**
 * Texts read lately, and their readings: a session is compiled again each time it gets events,
 * and each compile reads all of its messages; a reading is a function of the text alone.
 * Bounded by the texts' length (about 10,000 chat messages; with their readings some 5 MB of an
 * isolate's 128), the one read longest ago going first; `forgetReadings` empties it.
 */
const READ_TEXT_UNITS = 1_000_000;
const readTexts = new Map<string, Reading[]>();
let readTextUnits = 0;

/** The sentences of an event's text as read (`readingsOf`), read once while the text is among the latest read. */
export function readingsOfEvent(event: MemoryEvent): Reading[] {
  const text = event.text;
  if (!text) return [];
  const kept = readTexts.get(text);
  if (kept !== undefined) {
    readTexts.delete(text);
    readTexts.set(text, kept);
    return kept;
  }
  const readings = readingsOf(text);
  readTexts.set(text, readings);
  readTextUnits += text.length;
  for (const oldest of readTexts.keys()) {
    if (readTextUnits <= READ_TEXT_UNITS) break;
    readTexts.delete(oldest);
    readTextUnits -= oldest.length;
  }
  return readings;
}

/** Erasure: no text read before stays in memory. */
export function forgetReadings(): void {
  readTexts.clear();
  readTextUnits = 0;
}

export function readSentence({ text, start, end }: Sentence): Reading {
  const plain = normalized(text);
  const terms = termsOf(text);
  const stems = distinctStems(terms);
  const wants = REQUEST.test(plain);
  // The cheap test on the words first: a sentence that says more is none of these, whatever its phrases.
  const deferral = saysLittleBeyond(stems, DEFERRING) && DEFERRAL.test(plain);
  // How a sentence ends is in its last characters: the whole of a long run of "?" would be tried from each.
  const ending = text.slice(-END_CHARACTERS);
  const question =
    QUESTION.test(ending) ||
    (!STATED.test(ending) && (UNMARKED_QUESTION.test(plain) || UNMARKED_QUESTION.test(lastClause(text))));
  const smallTalk =
    plain === "" ||
    (stems.length === 0 && !wants) ||
    (stems.length <= SMALL_TALK_WORDS && SMALL_TALK.test(plain)) ||
    (saysLittleBeyond(stems, OPENING_WORDS) && OPENING.test(plain)) ||
    (stems.every((stem) => THANKING_WORDS.has(stem)) && THANKS.test(plain));
  const acknowledgement =
    (stems.length <= SMALL_TALK_WORDS && ACKNOWLEDGEMENT.test(plain)) ||
    (saysLittleBeyond(stems, ACKNOWLEDGING) && ACKNOWLEDGING_PHRASE.test(plain));
  const closing = saysLittleBeyond(stems, CLOSING_WORDS) && CLOSING.test(plain);
  return {
    text,
    start,
    end,
    stems,
    question,
    request: question || wants,
    smallTalk,
    // "Let me check: your parcel arrives on Thursday" puts nothing off: a phrase with more said is no deferral.
    deferral,
    later: deferral && LATER.test(plain),
    acknowledgement,
    closing,
    firstPerson: SUBJECT.test(plain) ? 2 : terms.some((term) => FIRST_PERSON.has(term)) ? 1 : 0,
    substantive: stems.length > 0 && !smallTalk && !deferral && !acknowledgement && !closing,
  };
}

/** A sentence's content stems (`contentStems`), each once, in order. */
function distinctStems(terms: readonly string[]): string[] {
  const stems = contentStems(terms);
  for (let i = 1; i < stems.length; i++) {
    // Few stems a sentence: looking back is cheaper than a set.
    if (stems.lastIndexOf(stems[i] as string, i - 1) >= 0) return [...new Set(stems)];
  }
  return stems;
}

/**
 * Whether a customer's message only ends their part of the conversation (docs/api/memory.md,
 * episode outcome): thanks, a goodbye, an acknowledgement ("ok", "sounds good", "that's all I
 * needed"), an emoji. It asks and wants nothing, says nothing about the matter, and is more than a
 * greeting ("hi" after an answer opens something again). A message without text is none.
 */
export function signsOff(readings: readonly Reading[]): boolean {
  return (
    readings.some((reading) => !GREETING.test(normalized(reading.text))) &&
    readings.every((reading) => !reading.request && (!reading.substantive || wrapsUp(reading)))
  );
}

const wrapsUp = (reading: Reading) =>
  reading.stems.every((stem) => WRAPPING_UP.has(stem)) && WRAP_UP.test(normalized(reading.text));

/** A sentence that says something about the matter: none of the above, with a content word. */
export const isSubstantive = (reading: Reading): boolean => reading.substantive;

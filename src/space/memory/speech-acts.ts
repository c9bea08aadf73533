import { termsOf } from "../search/tokens";
import { contentStemsOf } from "./content-words";
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
  /** Greetings, thanks, goodbyes, "how are you?", "are you there?": nothing about the matter. */
  smallTalk: boolean;
  /** "Let me check", "one moment", "I'll get back to you": an answer put off. */
  deferral: boolean;
  /** "Ok", "got it", "I understand", "sorry to hear that": no answer. */
  acknowledgement: boolean;
  /** "Anything else?", "have a nice day": the conversation ending. */
  closing: boolean;
  /** Speaks of the speaker: "I", "my", "we", "our" (0 none, 1 in the sentence, 2 as its subject). */
  firstPerson: 0 | 1 | 2;
}

const QUESTION = /\?[^\p{L}\p{N}]*$/u;
/**
 * A question without its question mark, as chat and voice transcripts write them ("where is my
 * parcel", "um can you check"): a question word and a verb, or a verb and its subject, first.
 */
const UNMARKED_QUESTION =
  /^((um|uh|er|erm|so|and|but|well|ok|okay|oh|hi|hey|also|right|yeah|sorry) )*((where|when|what|why|how|who|which|whose) (is|are|was|were|do|does|did|can|could|will|would|should|has|have|am)|(is|are|was|were|do|does|did|can|could|will|would|should|has|have|am) (you|u|i|it|my|the|there|this|that|we|they|he|she|your|our|any|anyone|anybody))\b/;
/** A sentence closed by a full stop or an exclamation mark was written as no question. */
const STATED = /[.!][^\p{L}\p{N}]*$/u;
const REQUEST =
  /\b(i (really )?(want|wanna|need)|i'?d (like|love)|i would (like|love)|i'?m (looking for|trying to)|can (you|u|i|we)|could (you|u|i|we)|would you|will you|please|pls|plz|help me|is it possible|how (do|can|would) i)\b/;

/** Whole sentences of small talk, as normalized (`normalized`): greetings (with a name), "how are you", thanks, goodbyes, interjections. */
const SMALL_TALK = new RegExp(
  [
    "(hi|hello|hey|hiya|heya|howdy|yo|greetings|good (morning|afternoon|evening|day)|morning|evening)( (there|all|again|team|guys|everyone))?( \\p{L}+)?",
    "(hi |hello |hey )?(how are (you|u|ya|things)( doing)?( today)?|how'?s it going|how (have|'?ve) you been|how is (your|ur) (day|week)( going)?|how was (your|ur) (day|weekend|week)|what'?s up|sup|(are )?(you|u) (still )?there|is (anyone|anybody|someone) (there|here)|anyone (there|here))",
    "(i'?m |all |am )?(good|fine|great|ok|okay|well|not bad|very well|doing (well|good|great|fine))( thanks| thank you| thx)?( and you| you| how about you| and yourself)?",
    "((ok|okay|great|perfect|cool|oh) )?(thanks|thank you|thx|ty|tysm|cheers|many thanks)( (so|very) much| a lot| again| anyway)?( for( your| the| all)? (help|support|time|assistance|quick reply|reply|patience|everything|that|this|info|information))?",
    "((ok|okay|thanks|thank you) )?(bye|goodbye|see you|see ya|cya|take care|talk soon|later|have a (nice|good|great|lovely|wonderful) (day|one|evening|weekend))( (bye|now|then|soon|later|tomorrow))?",
    "(lol|lmao|haha\\p{L}*|hehe|omg|wow|yay|woohoo|ok|okay|k|kk|cool|great|nice|awesome|perfect|sure|yes|yeah|yep|yup|no|nope|nah|hmm+|oh|ah|oops|alright|right)( (ok|okay|great|thanks|then|cool|sure|yes|no|lol))*",
  ]
    .map((pattern) => `^${pattern}$`)
    .join("|"),
  "u",
);

const DEFERRAL =
  /\b(let me (just )?(check|look|see|find|verify|confirm|pull|ask|get|review|transfer|escalate)|i'?ll (just )?(check|look|find out|get back|come back|update|let you know|ask|escalate|transfer|follow up)|i will (check|look|find out|get back|come back|update|let you know|ask|escalate|transfer|follow up)|(one|a|just a) (moment|minute|sec|second|mo)\b|give me (a|one|just a) (moment|minute|sec|second)|bear with (me|us)|please (hold|wait)|hold on|hang on|(get|come) back to you|looking into (it|this|that)|checking (now|on|that|this|it)|i'?m checking|i am checking|allow me (a|some|one)|(will|we'?ll) be in touch)\b/;
const ACKNOWLEDGEMENT =
  /^(ok|okay|sure|of course|certainly|absolutely|right|alright|got it|i see|noted|understood|no problem|no worries|great|perfect|fine|thanks|thank you|cool|i understand|makes sense|good)( (thanks|thank you|then|sir|madam|noted|got it|sure))*$/;
/** Sympathy that answers nothing when it says little else ("sorry to hear that", "I understand your frustration"). */
const SYMPATHY =
  /\b(i (completely |totally |fully )?understand|sorry to hear|i'?m (so |very |really )?sorry|i apologi[sz]e|apologies for|thanks? (you )?for (letting|telling|your patience|waiting|reaching out|contacting|the info|the information))\b/;
const CLOSING =
  /\b(anything else|something else|is that all|have a (nice|good|great|lovely|wonderful) (day|one|evening|weekend|afternoon)|bye|goodbye|take care|glad (i|to|we) (could )?help|happy to help|you'?re welcome|my pleasure|thanks? (you )?for (contacting|reaching|choosing|chatting|your patience|waiting))\b/;

/** At most this many content words in a deferral or a closing: more, and it says something. */
const MORE_SAID = 3;

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

/** Lower case, typographic apostrophes made plain, other punctuation and emoji turned to spaces. */
export function normalized(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[^\p{L}\p{N}'\s]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The sentences of a text as read (`Reading`). Never throws. */
export function readingsOf(text: string | null): Reading[] {
  return sentencesOf(text).map(readSentence);
}

/** An event's text is read once per compile: open items and the summarizer both read it. */
const readEvents = new WeakMap<MemoryEvent, Reading[]>();

/** The sentences of an event's text as read (`readingsOf`), kept as long as the event object lives. */
export function readingsOfEvent(event: MemoryEvent): Reading[] {
  let readings = readEvents.get(event);
  if (readings === undefined) {
    readings = readingsOf(event.text);
    readEvents.set(event, readings);
  }
  return readings;
}

export function readSentence(sentence: Sentence): Reading {
  const plain = normalized(sentence.text);
  const stems = [...new Set(contentStemsOf(sentence.text))];
  const question = QUESTION.test(sentence.text) || (!STATED.test(sentence.text) && UNMARKED_QUESTION.test(plain));
  const smallTalk = plain === "" || SMALL_TALK.test(plain) || (stems.length === 0 && !REQUEST.test(plain));
  const terms = termsOf(sentence.text);
  const firstPerson = SUBJECT.test(plain) ? 2 : terms.some((term) => FIRST_PERSON.has(term)) ? 1 : 0;
  return {
    ...sentence,
    stems,
    question,
    request: question || REQUEST.test(plain),
    smallTalk,
    // "Let me check: your parcel arrives on Thursday" puts nothing off: a phrase with more said is no deferral.
    deferral: stems.length <= MORE_SAID && DEFERRAL.test(plain),
    acknowledgement: ACKNOWLEDGEMENT.test(plain) || (stems.length <= 2 && SYMPATHY.test(plain)),
    closing: stems.length <= MORE_SAID && CLOSING.test(plain),
    firstPerson,
  };
}

/** A sentence that says something about the matter: none of the above, with a content word. */
export const isSubstantive = (reading: Reading): boolean =>
  reading.stems.length > 0 && !reading.smallTalk && !reading.deferral && !reading.acknowledgement && !reading.closing;

import { baseStem } from "../search/irregular-forms";
import { isStopWord, stemOf } from "../search/stems";
import { termsOf } from "../search/tokens";

/**
 * Words of chat that say nothing about what a conversation was about (greetings, thanks,
 * acknowledgements, laughter, hedges, apostrophe-less contractions), besides search's function
 * words. Memory leaves them out; search does not (someone may search for "thanks").
 */
const CHAT_FILLER: ReadonlySet<string> = new Set(
  `hi hello hey hiya heya howdy yo greetings dear sir madam mr mrs ms dr
   thanks thank thx ty tysm cheers appreciate appreciated welcome
   ok okay okey kk alright right sure fine cool great nice awesome perfect brilliant lovely wonderful amazing
   excellent fantastic super good glad happy
   yes yeah yep yup ya yea nope nah
   lol lmao haha hahaha hehe omg wow oh ah oops hmm hm um umm uh er erm yay woohoo whoa
   bye goodbye cya
   please pls plz sorry
   really actually basically literally also still anyway anyways maybe well
   im ive dont cant wont didnt doesnt isnt thats whats theres u ur r
   gonna wanna gotta let
   anything something everything nothing else thing things stuff`
    .split(/\s+/)
    .filter(Boolean),
);

export const isChatFiller = (term: string) => CHAT_FILLER.has(term);

/**
 * The stems of a text's content words, in order (repeats kept): the search stemmer's stems
 * (`stemOf`) as a query asks them (`baseStem`: "went" is `go`), without function words, chat
 * filler and one-character tokens.
 */
export const contentStemsOf = (text: string): string[] => contentStems(termsOf(text));

/** `contentStemsOf` of a text's folded terms (`termsOf`). */
export function contentStems(terms: readonly string[]): string[] {
  const stems: string[] = [];
  for (const term of terms) {
    if (term.length < 2 || isStopWord(term) || CHAT_FILLER.has(term)) continue;
    stems.push(baseStem(stemOf(term)));
  }
  return stems;
}

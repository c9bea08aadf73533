import { z } from "@hono/zod-openapi";
import { IdentifierSchema, integer, queryInteger, TimestampSchema, text } from "./common";

export const SEARCH_KINDS = ["message", "transcript", "episode", "fact"] as const;
export const SEARCH_MODES = ["plain", "fts5"] as const;

const QUERY_DESCRIPTION =
  "`plain` (default): text as a person or an agent writes it; its words (letters and digits, case and accents ignored) are looked up by their English stem (`moved` finds `moving`), function words (`the`, `what`, `is`...) weigh nothing unless the query has nothing else, any word may match, and a message also matches by the words of the two turns before it in its conversation, at a lower weight (the answer to a question is often the turn after it; not for a `vendor` person, whose search matches a row's own words only, as the turns before it may be other sources'); no text is a syntax error. `fts5`: SQLite FTS5 query syntax (phrases, `AND`/`OR`/`NOT`, `NEAR`, prefixes), searched in the text only, word for word; a malformed query is `422 invalid_input` (`query: fts5_syntax_error`).";

const ModeSchema = z.enum(SEARCH_MODES);
const CursorSchema = text(1, 512);

export const SearchInputSchema = z
  .strictObject({
    query: text(1, 1000).openapi({ description: QUERY_DESCRIPTION }),
    // No `.openapi()` on a registered schema here: its metadata would redefine the component.
    handle: IdentifierSchema.optional(),
    limit: integer(1, 200).optional().default(20).openapi({ default: 20 }),
    cursor: CursorSchema.optional().openapi({
      description: "The `next_cursor` of the previous page; one the service did not issue is `422`.",
    }),
    mode: ModeSchema.optional().default("plain").openapi({ default: "plain" }),
  })
  .openapi("SearchInput", {
    description:
      "`handle`: search only the profile holding it (with the profiles merged into it); unknown is `404`, and nothing is created.",
  });

export const ProfileSearchQuerySchema = z.strictObject({
  q: text(1, 1000).openapi({ description: QUERY_DESCRIPTION }),
  limit: queryInteger(1, 200).optional().default(20).openapi({ default: 20 }),
  cursor: CursorSchema.optional().openapi({
    description: "The `next_cursor` of the previous page; one the service did not issue is `422`.",
  }),
  mode: ModeSchema.optional().default("plain").openapi({ default: "plain" }),
});

export const SearchResultSchema = z
  .object({
    kind: z.enum(SEARCH_KINDS),
    id: z.string().openapi({
      description: "`message`, `transcript`: the item id; `episode`: the episode id (its session); `fact`: the fact id.",
    }),
    profile_id: z.string().openapi({ description: "The profile that answers for it now (a merged profile's survivor)." }),
    occurred_at: TimestampSchema,
    channel: z.string().nullable(),
    conversation_id: z.string().nullable(),
    snippet: z.string().openapi({
      description:
        "Up to 24 tokens of the text around its matched words, each between `**` and `**`; `…` where the text goes on.",
    }),
    score: z.number().min(0).openapi({
      description:
        "Relevance, higher first: BM25F over a row's words and the turns before it (plain), FTS5's `bm25()` (fts5). Comparable within one search only.",
    }),
  })
  .openapi("SearchResult");

export const SearchPageSchema = z
  .object({
    results: z.array(SearchResultSchema),
    next_cursor: z.string().nullable(),
  })
  .openapi("SearchPage");

export type SearchInput = z.infer<typeof SearchInputSchema>;
export type ProfileSearchQuery = z.infer<typeof ProfileSearchQuerySchema>;
export type SearchResult = z.infer<typeof SearchResultSchema>;
export type SearchPage = z.infer<typeof SearchPageSchema>;

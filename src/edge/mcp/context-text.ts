import type { Context, ContextAnswer } from "../../contract/context";

type Memory = Context["memory"];

/**
 * The context answer as a few lines for a model that reads text (the whole answer travels as
 * `structuredContent`): what memory holds, newest last in `live`, always with the `etag` that
 * the agent's events stamp (`context_stamp`).
 */
export function contextText(answer: ContextAnswer): string {
  if ("unchanged" in answer) return `Unchanged: the context with etag ${answer.etag} is current.`;
  const { profile, compiled } = answer;
  const freshness =
    compiled.through === null
      ? "memory not compiled yet"
      : `memory compiled through ${compiled.through}${compiled.pending > 0 ? `, ${compiled.pending} newer events not yet compiled (they are in live)` : ""}`;
  const lines = [
    `Customer ${answer.profile_id} (${profile.subject_kind}, verified ${profile.level}); etag ${answer.etag}; as of ${answer.as_of}; ${freshness}.`,
    `Identifiers: ${list(profile.identifiers.map((id) => `${id.type} ${id.value}`))}`,
    ...memoryLines(answer.memory),
    answer.live.length === 0 ? "Live (open sessions): none" : "Live (open sessions, oldest first):",
    ...answer.live.map(
      (item) =>
        `- ${item.occurred_at} ${item.channel ?? "no channel"} ${item.speaker_role ?? "system"}: ${item.text ?? "(no text)"}`,
    ),
  ];
  if (answer.about) {
    const { about } = answer;
    lines.push(
      `About ${about.link.kind} ${about.profile_id} (${about.subject_kind}${about.link.role ? `, role ${about.link.role}` : ""}):`,
    );
    lines.push(...memoryLines(about.memory).map((line) => `  ${line}`));
  }
  return lines.join("\n");
}

function memoryLines(memory: Memory): string[] {
  return [
    `Facts: ${list(memory.facts.map((fact) => `${fact.key} = ${fact.value}${fact.status === "active" ? "" : ` (${fact.status})`} [${fact.fact_id}]`))}`,
    `Open items: ${list(memory.open_items.map((item) => `${item.kind}: ${item.summary} [${item.open_item_id}]`))}`,
    `Promises: ${list(memory.promises.map((p) => `${p.by} promised ${p.what} (${p.status}${p.due_at ? `, due ${p.due_at}` : ""})`))}`,
    `Recent conversations: ${list(memory.episodes.map((e) => `${e.summary} (${e.channel ?? "no channel"}, ${e.started_at}, ${e.outcome}) [${e.episode_id}]`))}`,
    `Open objects: ${list(memory.objects.map((o) => `${o.object_type} ${o.object_id}${o.status ? ` ${o.status}` : ""}`))}`,
  ];
}

function list(entries: string[]): string {
  return entries.length === 0 ? "none" : entries.join("; ");
}

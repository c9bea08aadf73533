import type { BatchAnswer, ItemError } from "../../contract/batch";
import type { SpaceConfigValues } from "../../contract/config";
import { FeedbackEnvelopeSchema, type FeedbackItem, FeedbackItemSchema } from "../../contract/feedback";
import { describeIssues } from "../../http/issues";
import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { rootOf } from "../identity/profiles";
import { type Intake, insertItems, occurrence, storedKeys } from "../intake";
import { supersedeServedContexts } from "../measurement/served-contexts";
import { compileSubjects, queueCompile } from "./compiler";
import { recordCorrection } from "./corrections";
import { addSubjects, derivationById, noSubjects, type Subjects } from "./derivations";
import { latestSessionsOf } from "./sessions";

/** Who gave the feedback: a source key, or a person (stored as `person:<id>` in place of a source and key). */
export interface FeedbackCaller {
  sourceId: string;
  keyId: string;
  test: boolean;
}

/** What one feedback item is about, once its id was found. */
type Target =
  | { kind: "subjects"; profileId: string; targetId: string; subjects: Subjects }
  | { kind: "sessions"; profileId: string; sessions: { sessionId: string; profileId: string }[] };

/**
 * Stores feedback (SPEC `POST /v1/feedback`) as items like any other, deduplicated by
 * `idempotency_key`, and applies it in the same transaction: a fact's or an open item's entries
 * are compiled again at once, a conversation's latest sessions are queued for the compiler.
 * Checked like a batch: the envelope refuses the whole request, then each item alone (a key only
 * an earlier refused item had leaves the next its own), and `occurred_at` with the clock tolerance.
 */
export function ingestFeedback(
  intake: Intake,
  caller: FeedbackCaller,
  body: unknown,
  now: number,
  config: SpaceConfigValues,
): BatchAnswer {
  const envelope = FeedbackEnvelopeSchema.safeParse(body);
  if (!envelope.success) {
    throw new Problem("invalid_input", describeIssues(FeedbackEnvelopeSchema, envelope.error.issues));
  }
  const errors: ItemError[] = [];
  const candidates: { index: number; item: FeedbackItem; json: string }[] = [];
  envelope.data.items.forEach((raw, index) => {
    const parsed = FeedbackItemSchema.safeParse(raw);
    if (!parsed.success) {
      errors.push({
        index,
        code: "invalid_input",
        detail: describeIssues(FeedbackItemSchema, parsed.error.issues, "", "item", raw),
      });
      return;
    }
    candidates.push({ index, item: parsed.data, json: JSON.stringify(parsed.data) });
  });

  let accepted = 0;
  let duplicates = 0;
  intake.db.transaction(() => {
    const stored = storedKeys(
      intake,
      candidates.map(({ item }) => item.idempotency_key),
    );
    const touched = new Map<string, Subjects>();
    const written = new Set<string>();
    const sessions = new Map<string, { profileId: string; events: number }>();
    const storedHere = new Set<string>();
    for (const { index, item, json } of candidates) {
      if (stored.has(item.idempotency_key) || storedHere.has(item.idempotency_key)) {
        duplicates++;
        continue;
      }
      const target = targetOf(intake.sql, item);
      if (!target) {
        errors.push({ index, code: "not_found", detail: `item ${index}: ${idField(item)} names nothing in this space` });
        continue;
      }
      const itemId = uuidv7(now);
      const profileId = rootOf(intake.sql, target.profileId)?.profileId ?? target.profileId;
      written.add(profileId);
      const { occurredAt, claimedOccurredAt } = occurrence(item, now, config);
      insertItems(intake, [
        {
          itemId,
          idempotencyKey: item.idempotency_key,
          type: "feedback",
          kind: item.action,
          channel: null,
          conversationId: item.action === "conversation_outcome" ? item.conversation_id : null,
          taskId: null,
          sourceId: caller.sourceId,
          keyId: caller.keyId,
          test: caller.test ? 1 : 0,
          occurredAt,
          claimedOccurredAt,
          clockCorrected: claimedOccurredAt === null ? 0 : 1,
          receivedAt: now,
          body: json,
          profileId,
          sessionId: null,
        },
      ]);
      storedHere.add(item.idempotency_key);
      const seq = intake.sql.exec<{ seq: number }>("SELECT last_insert_rowid() AS seq").one().seq;
      const value = "value" in item ? item.value : null;
      if (target.kind === "subjects") {
        recordCorrection(intake.sql, target.targetId, { action: item.action, value, itemId }, seq);
        const subjects = touched.get(target.profileId) ?? noSubjects();
        addSubjects(subjects, target.subjects);
        touched.set(target.profileId, subjects);
      } else {
        for (const { sessionId, profileId } of target.sessions) {
          recordCorrection(intake.sql, sessionId, { action: item.action, value, itemId }, seq);
          sessions.set(sessionId, { profileId, events: 0 });
        }
      }
      accepted++;
    }
    // A context answered before this feedback is no longer current (context-use measurement).
    supersedeServedContexts(intake.sql, written, now);
    for (const [profileId, subjects] of touched) compileSubjects(intake.sql, profileId, subjects, now);
    queueCompile(intake.sql, sessions, now);
  });
  errors.sort((a, b) => a.index - b.index);
  return { accepted, duplicates, errors };
}

function targetOf(sql: SqlStorage, item: FeedbackItem): Target | null {
  const target = anyTargetOf(sql, item);
  // What an erasure under way has not deleted yet is no target: its profile is gone already.
  return target && rootOf(sql, target.profileId) ? target : null;
}

function anyTargetOf(sql: SqlStorage, item: FeedbackItem): Target | null {
  switch (item.action) {
    case "retract_fact":
    case "correct_fact": {
      const found = derivationById(sql, item.fact_id);
      if (found?.derivation.type !== "fact") return null;
      const subjects = noSubjects();
      subjects.facts.add(found.derivation.subject);
      return { kind: "subjects", profileId: found.profileId, targetId: item.fact_id, subjects };
    }
    case "resolve_open_item": {
      const found = derivationById(sql, item.open_item_id);
      const subjects = noSubjects();
      if (found?.derivation.type === "question") subjects.questions.add(found.derivation.id);
      else if (found?.derivation.type === "object") subjects.objects.add(found.derivation.subject);
      else return null;
      return { kind: "subjects", profileId: found.profileId, targetId: item.open_item_id, subjects };
    }
    case "conversation_outcome": {
      const latest = latestSessionsOf(sql, item.conversation_id);
      const first = latest[0];
      if (!first) return null;
      // A conversation one system id shares between customers: each one's latest session.
      return { kind: "sessions", profileId: first.profileId, sessions: latest };
    }
  }
}

const idField = (item: FeedbackItem) =>
  item.action === "resolve_open_item" ? "open_item_id" : item.action === "conversation_outcome" ? "conversation_id" : "fact_id";

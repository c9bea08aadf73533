import { auditPage, recordOutcome } from "../../audit/log";
import type { PresentedCredential } from "../../auth/credential";
import { POLICIES } from "../../auth/policy";
import type { SpaceAuditPage, SpaceAuditQuery } from "../../contract/audit";
import { ForgetInputSchema, type ReceiptKeyView } from "../../contract/privacy";
import { type BodyInput, parseJsonBody } from "../../http/body";
import { parseOrRefuse } from "../../http/issues";
import { type Outcome, ok, outcomeOf, Problem } from "../../http/problem";
import type { IdempotencyRequest } from "../../idempotency";
import { forgetServedContexts } from "../measurement/served-contexts";
import { deleteErasedMedia } from "../media/erasure";
import { forgetReadings } from "../memory/speech-acts";
import { forgetVocabulary } from "../memory/vocabulary";
import type { SpaceRequests } from "../requests";
import { continueErasure, type ErasureView, erasureView, REQUEST_FINISH_MS, requestErasure } from "./erasures";
import { currentReceiptKey, receiptKeyById } from "./receipt-keys";
import { ReceiptSigner } from "./receipt-signer";

/** The privacy and audit routes of a space: forget and its receipts, the receipt key, the audit log (docs/api/privacy.md). */
export class PrivacyRequests {
  #space: SpaceRequests;
  #receipts: ReceiptSigner;

  constructor(space: SpaceRequests) {
    this.#space = space;
    this.#receipts = new ReceiptSigner(space.sql, space.env.FILES, (work) => space.db.transaction(work));
  }

  /**
   * `POST /v1/forget`: the subject is cut loose and its first slice erased in the request's
   * transaction; a small subject is done then, and its receipt signed before the answer.
   */
  async forget(
    credential: PresentedCredential,
    body: BodyInput,
    idempotency: IdempotencyRequest,
    requestId: string | null,
  ): Promise<Outcome<ErasureView>> {
    const space = this.#space;
    const input = () => parseOrRefuse(ForgetInputSchema, parseJsonBody(body));
    const audit = space.audit<ErasureView>(credential, "forget", requestId);
    audit.targetsOf = (view) => [{ type: "receipt", id: view.state === "completed" ? view.receipt.receipt_id : view.receipt_id }];
    // An erasure started here is logged in its own transaction: a restart before the answer (R2
    // slow to delete its files) must not leave it out of the log. Refusals and replays after.
    let logged = false;
    const started = await space.idempotent(
      credential,
      POLICIES.security,
      idempotency,
      (_caller, now, subject) => {
        const { receiptId, members, job } = requestErasure(space.sql, subject, now);
        recordOutcome(
          space.sql,
          { ...audit, targets: [{ type: "receipt", id: receiptId }], targetsOf: undefined },
          ok(null),
          now,
        );
        logged = true;
        this.#forgetHeld(members);
        if (job) continueErasure(space.sql, job, now, space.stopwatch, REQUEST_FINISH_MS);
        return { receipt_id: receiptId };
      },
      input,
    );
    const outcome = started.ok ? await this.#answerForget(started.value.receipt_id) : started;
    // A failure inside the transaction rolled its row back with it.
    if (!(started.ok && logged)) recordOutcome(space.sql, audit, outcome, space.now());
    return outcome;
  }

  async #answerForget(receiptId: string): Promise<Outcome<ErasureView>> {
    await this.signReceipt(receiptId);
    return outcomeOf(() => this.#erasure(receiptId));
  }

  erasureReceipt(credential: PresentedCredential, receiptId: string, requestId: string | null): Promise<Outcome<ErasureView>> {
    const space = this.#space;
    const audit = space.audit<ErasureView>(credential, "receipt.read", requestId, [{ type: "receipt", id: receiptId }]);
    return space.audited(audit, () => space.admitted(credential, POLICIES.security, () => this.#erasure(receiptId)));
  }

  /** `GET /v1/privacy/receipt-key`: the key that signs now, or the one named `kid`. */
  receiptKey(credential: PresentedCredential, kid: string | undefined): Promise<Outcome<ReceiptKeyView>> {
    return this.#space.admitted(credential, POLICIES.receiptKey, async (_caller, now) => {
      const key = kid === undefined ? await currentReceiptKey(this.#space.sql, now) : receiptKeyById(this.#space.sql, kid);
      if (!key) throw new Problem("not_found", "no such key");
      return { kid: key.kid, jwk: key.jwk };
    });
  }

  /** `GET /v1/audit`: the space's log, oldest first; the read itself is a row of it. */
  readAudit(credential: PresentedCredential, query: SpaceAuditQuery, requestId: string | null): Promise<Outcome<SpaceAuditPage>> {
    const space = this.#space;
    return space.audited(space.audit(credential, "audit.read", requestId), () =>
      space.admitted(credential, POLICIES.security, () =>
        space.paged(
          "audit",
          query.cursor,
          "query.cursor",
          (cursor) => auditPage(space.sql, { ...query, cursor }) as SpaceAuditPage,
        ),
      ),
    );
  }

  /**
   * Signs a receipt whose data is erased (here, or by the signing timer); what the object holds in
   * memory of the space's words is read again. R2 failing leaves the receipt `signing`: its timer
   * (`forget.sign`) tries again, and the request or the alarm round goes on.
   */
  async signReceipt(receiptId: string): Promise<void> {
    const space = this.#space;
    try {
      // The media forget erased leave R2 before a receipt says they did (a restart: the signing timer).
      await deleteErasedMedia(space.sql, space.env.FILES, space.spaceName());
      if (await this.#receipts.sign(receiptId, space.now())) this.#forgetHeld([]);
    } catch (error) {
      console.error(JSON.stringify({ message: "receipt signing failed", receipt_id: receiptId, error: (error as Error).name }));
    }
  }

  #erasure(receiptId: string): ErasureView {
    const view = erasureView(this.#space.sql, receiptId);
    if (!view) throw new Problem("not_found", "no such receipt");
    return view;
  }

  /** What the object holds in memory of erased profiles (the hot tier, unwritten etags), of the space's words and of texts read. */
  #forgetHeld(profileIds: readonly string[]): void {
    const { hot, sql, searchTerms } = this.#space;
    hot.forget(profileIds);
    forgetServedContexts(sql, profileIds);
    searchTerms.clear();
    forgetVocabulary(sql);
    forgetReadings();
  }
}

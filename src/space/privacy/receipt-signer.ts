import { completeErasure, pendingReceipt } from "./erasures";
import { currentReceiptKey, type SigningReceiptKey } from "./receipt-keys";
import { signReceipt, subjectHash } from "./receipts";

/**
 * Signs receipts once their data is erased, and hands out the key that signs now. Key making is
 * serialized (two requests at once would each make a key); signing the same receipt twice stores
 * the first signature only (`completeErasure` completes a `signing` erasure once).
 */
export class ReceiptSigner {
  #keys: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly sql: SqlStorage,
    private readonly transaction: (work: () => void) => void,
  ) {}

  /** Signs the receipt if its erasure is waiting for it; nothing otherwise. */
  async sign(receiptId: string, now: number): Promise<void> {
    const pending = pendingReceipt(this.sql, receiptId);
    if (!pending) return;
    const unsigned = {
      receipt_id: receiptId,
      kid: "",
      subject_hash: await subjectHash(this.sql, pending.handles),
      counts: pending.counts,
      started_at: new Date(pending.startedAt).toISOString(),
      completed_at: new Date(now).toISOString(),
    };
    const key = await this.key(now);
    const receipt = await signReceipt({ ...unsigned, kid: key.kid }, key);
    this.transaction(() => completeErasure(this.sql, receipt, now));
  }

  key(now: number): Promise<SigningReceiptKey> {
    const next = this.#keys.then(() => currentReceiptKey(this.sql, now));
    this.#keys = next.catch(() => undefined);
    return next;
  }
}

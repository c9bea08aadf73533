import { abortUpload } from "../exports/file";
import { completeErasure, filesToDelete, pendingReceipt } from "./erasures";
import { currentReceiptKey } from "./receipt-keys";
import { signReceipt, subjectHash } from "./receipts";

/**
 * Signs receipts once their data is erased, with the key that signs now (`currentReceiptKey`);
 * signing the same receipt twice stores the first signature only (`completeErasure` completes a
 * `signing` erasure once).
 */
export class ReceiptSigner {
  constructor(
    private readonly sql: SqlStorage,
    private readonly bucket: R2Bucket,
    private readonly transaction: <T>(work: () => T) => T,
  ) {}

  /**
   * Deletes the subject's export files and signs the receipt if its erasure is waiting for it;
   * nothing otherwise (the data still being erased, or an import holding the receipt). A restart
   * before the signature is stored does both again (its timer). Answers whether it signed.
   */
  async sign(receiptId: string, now: number): Promise<boolean> {
    const waiting = pendingReceipt(this.sql, receiptId);
    if (!waiting) return false;
    for (const file of filesToDelete(this.sql, receiptId)) {
      if (file.uploadId) await abortUpload(this.bucket, file.objectKey, file.uploadId);
      await this.bucket.delete(file.objectKey);
    }
    const key = await currentReceiptKey(this.sql, now);
    const subject_hash = await subjectHash(this.sql, waiting.handles);
    // The counts as they stand after the awaits: a batch meanwhile may have added tombstones.
    const pending = pendingReceipt(this.sql, receiptId);
    if (!pending) return false;
    const receipt = await signReceipt(
      {
        receipt_id: receiptId,
        kid: key.kid,
        subject_hash,
        counts: pending.counts,
        started_at: new Date(pending.startedAt).toISOString(),
        completed_at: new Date(now).toISOString(),
      },
      key,
    );
    // Kept only if the counts did not move while it was signed; else the signing timer signs again.
    return this.transaction(() => completeErasure(this.sql, receipt, now));
  }
}

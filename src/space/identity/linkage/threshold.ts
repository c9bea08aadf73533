/**
 * The match probability from which a pair is suggested, unless a space's `suggestion_threshold`
 * says otherwise. Chosen on the bench's person-record generator (`test/bench/person-records.mjs`):
 * at 0.9 it finds about 92 % of the true pairs at a precision above 0.99, so the target (0.95)
 * holds with room for data noisier than the generator's.
 */
export const DEFAULT_SUGGESTION_THRESHOLD = 0.9;

/**
 * The match probability from which a pair is suggested, unless a space's `suggestion_threshold`
 * says otherwise. Chosen on the bench's person-record generator (`test/bench/person-records.mjs`,
 * 5,000 records): at 0.8 it finds about 92 % of the true pairs at a precision of 0.997 (at 0.9,
 * 91 %; at 0.95, 90 %: the probabilities are cautious there), so the target precision (0.95) holds
 * with room for data noisier than the generator's.
 */
export const DEFAULT_SUGGESTION_THRESHOLD = 0.8;

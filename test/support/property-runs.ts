import { inject } from "vitest";

const scale = inject("propertyScale");

/**
 * A property's number of runs: its budget in `npm test`, times the scale `npm run test:deep`
 * sets (`TEST_PROPERTY_SCALE`, 10 there), for a longer search before a release or after a
 * change to what the property covers.
 */
export function runs(budget: number): number {
  return Math.max(1, Math.round(budget * scale));
}

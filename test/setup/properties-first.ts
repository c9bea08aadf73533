import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The order files are handed to the two workers: property files (`*.properties.test.ts`, the ones
 * with long budgets) first, the rest after, each group in vitest's order (longest first by the
 * last run's timings, or largest first in a clean clone, which has none). By size alone a short
 * file with a long property was handed out last and kept one worker busy while the other idled.
 */
export class PropertiesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isProperties = (file: TestSpecification) => file.moduleId.endsWith(".properties.test.ts");
    return [...sorted.filter(isProperties), ...sorted.filter((file) => !isProperties(file))];
  }
}

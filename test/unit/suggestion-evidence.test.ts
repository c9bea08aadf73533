import { describe, expect, it } from "vitest";
import { strongerEvidence } from "../../src/space/identity/suggestions";

describe("new evidence for a dismissed pair", () => {
  // Patterns: one character per comparison (given, family, birth date, postal code, street,
  // locality, e-mail, phone), the level's index or `-` when neutral.
  const then = { pattern: "03-2----", meetings: 0 };

  it("is a comparison at a stronger level, a value that now agrees, or more meetings", () => {
    expect(strongerEvidence({ pattern: "02-2----", meetings: 0 }, then)).toBe(true);
    expect(strongerEvidence({ pattern: "0302----", meetings: 0 }, then)).toBe(true);
    expect(strongerEvidence({ pattern: "03-2----", meetings: 1 }, then)).toBe(true);
  });

  it("is not the same evidence, a weaker level, or a value that now disagrees", () => {
    expect(strongerEvidence(then, then)).toBe(false);
    expect(strongerEvidence({ pattern: "04-2----", meetings: 0 }, then)).toBe(false);
    expect(strongerEvidence({ pattern: "0342----", meetings: 0 }, then)).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { COMPARISONS, compareTraits, oneDigitOff, wordSimilarity } from "../../src/space/identity/linkage/comparisons";
import { jaroWinkler } from "../../src/space/identity/linkage/jaro-winkler";
import { soundex } from "../../src/space/identity/linkage/phonetic";
import { plainWords, type TraitSet, traitsOf } from "../../src/space/identity/linkage/traits";

/** The level's name of comparison `name` for two trait sets. */
function level(name: string, a: TraitSet, b: TraitSet): string | null {
  const k = COMPARISONS.findIndex((comparison) => comparison.name === name);
  const index = compareTraits(a, b)[k];
  return index === null || index === undefined ? null : ((COMPARISONS[k]?.levels[index] as string | undefined) ?? null);
}

describe("string metrics", () => {
  it("Jaro-Winkler gives the published values (Winkler 1990)", () => {
    expect(jaroWinkler("martha", "marhta")).toBeCloseTo(0.961, 3);
    expect(jaroWinkler("dwayne", "duane")).toBeCloseTo(0.84, 3);
    expect(jaroWinkler("dixon", "dicksonx")).toBeCloseTo(0.813, 3);
    expect(jaroWinkler("abc", "abc")).toBe(1);
    expect(jaroWinkler("", "")).toBe(0);
    expect(jaroWinkler("abc", "")).toBe(0);
    expect(jaroWinkler("abc", "xyz")).toBe(0);
    // Jaro (4/8 + 4/8 + 4/4) / 3: at or below Winkler's 0.7 a shared prefix adds nothing (strcmp95).
    expect(jaroWinkler("abcdxyzw", "abcdqrst")).toBeCloseTo(2 / 3, 6);
    expect(jaroWinkler("abcdxyzw", "abcdqrst")).toBe(jaroWinkler("xyzwabcd", "qrstabcd"));
    // A character outside the Basic Multilingual Plane is one character, not two UTF-16 units.
    expect(jaroWinkler("𠜎𠜱", "𠝹𠱓")).toBe(0);
    expect(jaroWinkler("𠜎𠜱𠝹", "𠜎𠜱𠱓")).toBeCloseTo(jaroWinkler("abc", "abd"), 6);
  });

  it("Soundex gives the National Archives' codes", () => {
    expect(soundex("Robert")).toBe("R163");
    expect(soundex("Rupert")).toBe("R163");
    expect(soundex("Rubin")).toBe("R150");
    expect(soundex("Ashcraft")).toBe("A261");
    expect(soundex("Tymczak")).toBe("T522");
    expect(soundex("Pfister")).toBe("P236");
    expect(soundex("Lee")).toBe("L000");
    expect(soundex("123")).toBe("");
    expect(plainWords("Łukasz Ørsted-Straße, Ærø")).toBe("lukasz orsted strasse aero");
    expect(soundex(plainWords("Łukasz"))).toBe("L220");
    expect(soundex(plainWords("Søren Ðorđević"))).toBe("S653");
  });

  it("one digit off: one digit changed or two neighbours swapped, never more", () => {
    expect(oneDigitOff("1936", "1396")).toBe(true);
    expect(oneDigitOff("2000", "2001")).toBe(true);
    expect(oneDigitOff("2000", "2011")).toBe(false);
    expect(oneDigitOff("1936", "6931")).toBe(false);
    expect(oneDigitOff("200", "2000")).toBe(false);
  });

  it("word similarity matches near words but numbers only exactly", () => {
    expect(wordSimilarity("12 smith street", "12 smith street")).toBe(1);
    expect(wordSimilarity("12 smiht street", "12 smith street")).toBe(1);
    expect(wordSimilarity("12 smith street", "14 smith street")).toBeCloseTo(2 / 3);
    expect(wordSimilarity("", "12 smith street")).toBe(0);
  });
});

describe("comparison levels", () => {
  it("names: exact, close (≥ 0.92), similar (≥ 0.80, Soundex, a nickname or an initial), different; missing is neutral", () => {
    expect(level("given_name", { given_name: ["martha"] }, { given_name: ["martha"] })).toBe("exact");
    expect(level("given_name", { given_name: ["martha"] }, { given_name: ["marhta"] })).toBe("close");
    expect(level("given_name", { given_name: ["dwayne"] }, { given_name: ["duane"] })).toBe("similar");
    expect(level("given_name", { given_name: ["william"] }, { given_name: ["bill"] })).toBe("similar");
    expect(level("given_name", { given_name: ["j"] }, { given_name: ["john"] })).toBe("similar");
    expect(level("given_name", { given_name: ["john"] }, { given_name: ["mary"] })).toBe("different");
    expect(level("given_name", { given_name: ["john"] }, {})).toBeNull();
    expect(level("given_name", {}, {})).toBeNull();
    expect(level("family_name", { family_name: ["riean"] }, { family_name: ["ryan"] })).toBe("similar");
  });

  it("names of any script compare by their letters", () => {
    expect(level("family_name", { family_name: ["müller"] }, { family_name: ["müller"] })).toBe("exact");
    expect(level("family_name", { family_name: ["李"] }, { family_name: ["王"] })).toBe("different");
    // Accents go when traits are read, so "Ζωή" and "ζωη" are one name.
    expect(level("given_name", { given_name: [plainWords("Ζωή")] }, { given_name: [plainWords("ζωη")] })).toBe("exact");
    expect(level("given_name", { given_name: ["ζωήλα"] }, { given_name: ["ζωήαλ"] })).toBe("close");
  });

  it("given and family names written the other way round are one agreement: family `swapped`, given neutral", () => {
    const a = { given_name: ["john"], family_name: ["smith"] };
    const b = { given_name: ["smith"], family_name: ["jonh"] };
    expect(level("family_name", a, b)).toBe("swapped");
    expect(level("given_name", a, b)).toBeNull();
    // Straight is better than crosswise: not swapped.
    expect(
      level("family_name", { given_name: ["lee"], family_name: ["lee"] }, { given_name: ["lee"], family_name: ["lee"] }),
    ).toBe("exact");
  });

  it("birth dates: exact, day and month transposed, one digit off, same year, different", () => {
    const dob = (value: string): TraitSet => ({ birth_date: [value] });
    expect(level("birth_date", dob("19800517"), dob("19800517"))).toBe("exact");
    expect(level("birth_date", dob("19800305"), dob("19800503"))).toBe("transposed");
    expect(level("birth_date", dob("19800517"), dob("19800518"))).toBe("one_digit");
    expect(level("birth_date", dob("19360517"), dob("13960517"))).toBe("one_digit");
    expect(level("birth_date", dob("19800517"), dob("19801124"))).toBe("same_year");
    expect(level("birth_date", dob("19800517"), dob("19711124"))).toBe("different");
  });

  it("postal codes: exact or one digit off; the locality is neutral when they agree", () => {
    const place = (postal: string, locality: string): TraitSet => ({ postal_code: [postal], locality: [locality] });
    expect(level("postal_code", place("2000", "sydney"), place("2000", "sydney"))).toBe("exact");
    expect(level("locality", place("2000", "sydney"), place("2000", "sydney"))).toBeNull();
    expect(level("postal_code", place("2000", "sydney"), place("2001", "sydney"))).toBe("one_digit");
    expect(level("locality", place("2000", "sydney"), place("2001", "sydny"))).toBe("close");
    expect(level("postal_code", place("2000", "sydney"), place("3000", "melbourne"))).toBe("one_digit");
    expect(level("postal_code", place("2000", "sydney"), place("3141", "melbourne"))).toBe("different");
  });

  it("after postal codes that differ, a street or locality that differs too is neutral (one move), one that agrees counts", () => {
    const home = (postal: string, street: string, locality: string): TraitSet => ({
      postal_code: [postal],
      street: [street],
      locality: [locality],
    });
    const moved = compareTraits(home("2000", "1 high street", "sydney"), home("3141", "9 park road", "melbourne"));
    expect(moved.slice(3, 6)).toEqual([2, null, null]);
    expect(level("street", home("2000", "1 high street", "sydney"), home("3141", "1 high street", "melbourne"))).toBe("exact");
    expect(level("street", home("2000", "1 high street", "sydney"), home("2000", "9 park road", "sydney"))).toBe("different");
    expect(level("street", { street: ["12 smith street"] }, { street: ["12 smiht street"] })).toBe("close");
  });

  it("streets similar, localities different, e-mail local parts and phones by their own levels", () => {
    expect(level("street", { street: ["12 smith street"] }, { street: ["12 smith road"] })).toBe("similar");
    expect(level("locality", { locality: ["sydney"] }, { locality: ["melbourne"] })).toBe("different");
    const mail = (local: string): TraitSet => ({ email_local: [local] });
    expect(level("email_local", mail("jfairweather"), mail("jfairweather"))).toBe("exact");
    expect(level("email_local", mail("jfairweather"), mail("jfairwether"))).toBe("close");
    expect(level("email_local", mail("jfairweather"), mail("ana.lopez"))).toBe("different");
    const phone = (digits: string): TraitSet => ({ phone_national: [digits] });
    expect(level("phone_national", phone("770090012"), phone("770090012"))).toBe("exact");
    // A digit apart is another line of one company, not a typo.
    expect(level("phone_national", phone("770090012"), phone("770090013"))).toBe("different");
  });

  it("an attribute given empty or blank is no trait: its comparison is neutral", () => {
    expect(traitsOf({ given_name: "", surname: "   ", postal_code: "2041" })).toEqual([["postal_code", "2041"]]);
    expect(
      level("given_name", Object.fromEntries(traitsOf({ given_name: "" }).map(([t, v]) => [t, [v]])), { given_name: ["ana"] }),
    ).toBeNull();
  });

  it("an attribute named like a property of every object is no trait, and such a word in a street stays a word", () => {
    const attributes = { constructor: "Ana", toString: "Lopez", valueOf: "1990-01-02", street: "1 Constructor St" };
    expect(traitsOf(attributes)).toEqual([["street", "1 constructor street"]]);
    expect(traitsOf({ hasOwnProperty: "x", surname: "Lopez" }, { surname: "family_name" })).toEqual([["family_name", "lopez"]]);
  });

  it("the latest value and its alternatives: the best level over all of them", () => {
    expect(level("postal_code", { postal_code: ["3141", "2000"] }, { postal_code: ["2000"] })).toBe("exact");
  });
});

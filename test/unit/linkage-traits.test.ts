import { describe, expect, it } from "vitest";
import { blockingKeys, MAX_BLOCK } from "../../src/space/identity/linkage/blocking";
import { birthDate, handleTraits, splitFullName, traitsOf } from "../../src/space/identity/linkage/traits";

describe("traits from attributes", () => {
  it("reads the default attribute names, normalized", () => {
    const traits = new Map(
      traitsOf({
        name: "Ana López",
        date_of_birth: "1980-05-17",
        zip: "28 001",
        address: "12 Calle Mayor St",
        city: "Madrid",
        state: "MD",
        tier: "gold",
        age: 44,
      }),
    );
    expect(Object.fromEntries(traits)).toEqual({
      given_name: "ana",
      family_name: "lopez",
      birth_date: "19800517",
      postal_code: "28001",
      street: "12 calle mayor street",
      locality: "madrid",
      state: "md",
    });
  });

  it("reads every documented synonym of each trait", () => {
    const read = (attributes: Record<string, string>) => Object.fromEntries(traitsOf(attributes));
    for (const name of ["first_name", "forename", "given_name"]) expect(read({ [name]: "Ana" })).toEqual({ given_name: "ana" });
    for (const name of ["last_name", "surname", "family_name"])
      expect(read({ [name]: "Lopez" })).toEqual({ family_name: "lopez" });
    for (const name of ["name", "full_name"])
      expect(read({ [name]: "Ana Lopez" })).toEqual({ given_name: "ana", family_name: "lopez" });
    for (const name of ["date_of_birth", "dob", "birth_date", "birthdate"]) {
      expect(read({ [name]: "1980-05-17" })).toEqual({ birth_date: "19800517" });
    }
    for (const name of ["postal_code", "postcode", "zip", "zip_code"])
      expect(read({ [name]: "2000" })).toEqual({ postal_code: "2000" });
    for (const name of ["street", "address", "street_address"])
      expect(read({ [name]: "1 Main St" })).toEqual({ street: "1 main street" });
    for (const name of ["suburb", "city", "town", "locality"]) expect(read({ [name]: "Glebe" })).toEqual({ locality: "glebe" });
  });

  it("given and family names of their own win over a full name's parts", () => {
    const traits = Object.fromEntries(traitsOf({ name: "John Smith", given_name: "Jon", surname: "Smyth" }));
    expect(traits).toEqual({ given_name: "jon", family_name: "smyth" });
  });

  it("a space's mapping adds attribute names and switches defaults off", () => {
    const traits = Object.fromEntries(
      traitsOf({ vorname: "Jörg", plz: "10115", name: "ACME GmbH" }, { vorname: "given_name", plz: "postal_code", name: null }),
    );
    expect(traits).toEqual({ given_name: "jorg", postal_code: "10115" });
  });

  it("splits full names: comma form, titles, middle names, one word, nothing", () => {
    expect(splitFullName("Smith, John Paul")).toEqual({ given: "john", family: "smith" });
    expect(splitFullName("Dr. Mary Ann O'Brien")).toEqual({ given: "mary", family: "obrien" });
    expect(splitFullName("Cher")).toEqual({ given: "cher", family: null });
    expect(splitFullName("  ")).toEqual({ given: null, family: null });
  });

  it("reads birth dates in ISO and day-first forms, nothing else", () => {
    expect(birthDate("1980-05-17")).toBe("19800517");
    expect(birthDate("1980-05-17T00:00:00Z")).toBe("19800517");
    expect(birthDate("19800517")).toBe("19800517");
    expect(birthDate("17/05/1980")).toBe("19800517");
    expect(birthDate("7.5.1980")).toBe("19800507");
    expect(birthDate("May 17")).toBeNull();
    expect(birthDate("")).toBeNull();
  });

  it("takes an e-mail's local part and a phone's national number from handles", () => {
    expect(
      handleTraits([
        { type: "email", value: "ana.lopez+shop@example.com" },
        { type: "phone_e164", value: "+34612345678" },
        { type: "system_id", value: "crm-1" },
      ]),
    ).toEqual([
      ["email_local", "ana.lopez"],
      ["phone_national", "612345678"],
    ]);
  });
});

describe("blocking keys", () => {
  it("postal code, birth date with day and month in order, Soundex with initials both ways, prefixes", () => {
    const keys = blockingKeys({ given_name: ["john"], family_name: ["smith"], birth_date: ["19800305"], postal_code: ["2000"] });
    expect(keys.sort()).toEqual(["b:19800305", "i:jo:sm", "n:J500:s", "n:S530:j", "p:2000"].sort());
    // Transposed day and month, and swapped names, meet on a key.
    expect(blockingKeys({ birth_date: ["19800503"] })).toEqual(["b:19800305"]);
    const swapped = blockingKeys({ given_name: ["smith"], family_name: ["john"] });
    expect(swapped.filter((key) => keys.includes(key)).length).toBeGreaterThan(0);
    // A name without letters Soundex reads keys on itself.
    expect(blockingKeys({ given_name: ["customer"], family_name: ["5"] })).toContain("n:5:c");
    expect(blockingKeys({})).toEqual([]);
  });

  it("keys an e-mail's local part and a phone's national number, so records sharing only those meet", () => {
    const [a, b] = [
      blockingKeys({ email_local: ["ana.lopez"], phone_national: ["612345678"] }),
      blockingKeys({ given_name: ["anna"], email_local: ["ana.lopez"] }),
    ];
    expect(a.sort()).toEqual(["e:ana.lopez", "t:612345678"]);
    expect(a.filter((key) => b.includes(key))).toEqual(["e:ana.lopez"]);
  });

  it("caps a key at the documented 50 profiles", () => {
    expect(MAX_BLOCK).toBe(50);
  });
});

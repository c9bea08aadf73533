import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/policy";
import { ROLES, type Role, SCOPES, type Scope } from "../../src/contract/common";
import { maskValue, type Visibility, visibilityOf } from "../../src/space/identity/masking";

function person(...roles: Role[]): Principal {
  return { kind: "person", personId: "per_1", tenantId: "ten_1", roles, vendorSources: [] };
}

function key(...scopes: Scope[]): Principal {
  return { kind: "key", keyId: "key_1", sourceId: "src_1", scopes, mode: "live" };
}

const ROLE_VISIBILITY: Record<Role, Visibility> = {
  admin: "whole",
  security: "whole",
  review: "masked",
  integration: "masked",
  vendor: "masked",
  analysis: "none",
};
const RANK: Visibility[] = ["none", "masked", "whole"];

describe("visibilityOf", () => {
  it.each(ROLES.map((role) => [role, ROLE_VISIBILITY[role]]))("a person with role %s sees %s", (role, seen) => {
    expect(visibilityOf(person(role))).toBe(seen);
  });

  it("a person without roles sees none", () => {
    expect(visibilityOf(person())).toBe("none");
  });

  it("gives a person with several roles the most revealing of them", () => {
    expect(visibilityOf(person("analysis", "review"))).toBe("masked");
    expect(visibilityOf(person("vendor", "security"))).toBe("whole");
    expect(visibilityOf(person("analysis", "admin", "integration"))).toBe("whole");
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...ROLES), { minLength: 1 }), (roles) => {
        const best = Math.max(...roles.map((role) => RANK.indexOf(ROLE_VISIBILITY[role])));
        expect(visibilityOf(person(...roles))).toBe(RANK[best]);
      }),
    );
  });

  it.each(SCOPES.map((scope) => [scope, scope === "identify" ? "whole" : scope === "context" ? "masked" : "none"]))(
    "a key with scope %s alone sees %s",
    (scope, seen) => {
      expect(visibilityOf(key(scope))).toBe(seen);
    },
  );

  it("gives a key identify over context, and none without either", () => {
    expect(visibilityOf(key("context", "identify"))).toBe("whole");
    expect(visibilityOf(key("track", "context", "search"))).toBe("masked");
    expect(visibilityOf(key("track", "act", "search", "admin", "analytics"))).toBe("none");
    expect(visibilityOf(key())).toBe("none");
  });
});

describe("maskValue", () => {
  it("gives the value whole or nothing", () => {
    expect(maskValue("phone_e164", "+15555550100", "whole")).toBe("+15555550100");
    expect(maskValue("email", "jane@example.com", "whole")).toBe("jane@example.com");
    expect(maskValue("system_id", "cust-12345678", "whole")).toBe("cust-12345678");
    for (const type of ["phone_e164", "email", "system_id"]) expect(maskValue(type, "x", "none")).toBeNull();
  });

  it("masks phones, e-mails and other identifiers", () => {
    expect(maskValue("phone_e164", "+15555550100", "masked")).toBe("+*******0100");
    expect(maskValue("phone_e164", "+442079460958", "masked")).toBe("+********0958");
    expect(maskValue("email", "jane@example.com", "masked")).toBe("j***@example.com");
    expect(maskValue("email", "j@example.com", "masked")).toBe("j***@example.com");
    expect(maskValue("system_id", "cust-12345678", "masked")).toBe("****5678");
    expect(maskValue("crm_id", "12345", "masked")).toBe("****2345");
    expect(maskValue("crm_id", "1234", "masked")).toBe("****");
    expect(maskValue("crm_id", "", "masked")).toBe("****");
  });

  it("never shows a phone's hidden digits", () => {
    const digits = fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 5, maxLength: 15 });
    fc.assert(
      fc.property(digits, (number) => {
        const masked = maskValue("phone_e164", `+${number}`, "masked");
        expect(masked).toBe(`+${"*".repeat(number.length - 4)}${number.slice(-4)}`);
        expect(masked?.replace(/\*/g, "")).toBe(`+${number.slice(-4)}`);
      }),
    );
  });

  it("never shows an e-mail's local part beyond its first character", () => {
    const local = fc.string({
      unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789.+_-"),
      minLength: 1,
      maxLength: 30,
    });
    fc.assert(
      fc.property(local, fc.domain(), (name, domain) => {
        // Whatever the local part, only its first character shows, and not its length.
        expect(maskValue("email", `${name}@${domain}`, "masked")).toBe(`${name[0]}***@${domain}`);
      }),
    );
  });

  it("never shows more than the last 4 characters of other identifiers", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-ascii", maxLength: 40 }), (value) => {
        const masked = maskValue("system_id", value, "masked");
        expect(masked).toBe(value.length <= 4 ? "****" : `****${value.slice(-4)}`);
      }),
    );
  });
});

import { ROLES, type Role, SCOPES, type Scope } from "../contract/common";
import { Problem } from "../http/problem";
import type { KeyMode } from "./source-key";

/** Who is calling, once the credential has been checked. */
export type Principal =
  | {
      kind: "key";
      keyId: string;
      sourceId: string;
      scopes: readonly Scope[];
      mode: KeyMode;
    }
  | {
      kind: "person";
      personId: string;
      tenantId: string;
      roles: readonly Role[];
      vendorSources: readonly string[];
    };

/**
 * What a route accepts (DESIGN 3.2): a source key with any of `scopes`, a person with any of
 * `roles` (`admin` passes every role check). A route without `scopes` is for people only, one
 * without `roles` for keys only.
 */
export interface RoutePolicy {
  scopes?: readonly Scope[];
  roles?: readonly Role[];
}

export const POLICIES = {
  // Data API (DESIGN 3.2)
  batch: { scopes: ["track"] },
  whoami: { scopes: SCOPES, roles: ROLES },
  profileRead: { scopes: ["context", "identify"], roles: ["review", "security", "vendor"] },
  identity: { scopes: ["identify"], roles: ["review"] },
  context: { scopes: ["context"], roles: ["review"] },
  // A vendor person searches only what their bound sources wrote (README "Search").
  search: { scopes: ["search"], roles: ["review", "vendor"] },
  feedback: { scopes: ["act"], roles: ["review"] },
  identityReview: { roles: ["review"] },
  measurement: { scopes: ["admin"], roles: ["analysis", "integration"] },
  // Exports and the audit log: people with `security` only; a key is `403 forbidden`.
  security: { roles: ["security"] },
  // Anyone may verify a receipt: any valid key, any person of the tenant (DESIGN 3.2).
  receiptKey: { scopes: SCOPES, roles: ROLES },
  media: { scopes: ["track"], roles: ["integration"] },
  // An import's rows are a source's items, as a batch's: sending a file takes a key (docs/api/imports.md).
  importFile: { scopes: ["track"] },
  importRead: { scopes: ["track"], roles: ["integration"] },
  // Control API (DESIGN 3.3)
  me: { roles: ROLES },
  people: { roles: ["admin"] },
  projects: { roles: ["admin"] },
  sources: { roles: ["integration"] },
  keys: { roles: ["integration"] },
  configRead: { roles: ["integration"] },
  configWrite: { roles: ["admin"] },
  usage: { roles: ["admin"] },
} as const satisfies Record<string, RoutePolicy>;

export type PolicyName = keyof typeof POLICIES;

export function authorize(principal: Principal, policy: RoutePolicy): void {
  if (principal.kind === "key") {
    if (!policy.scopes) throw new Problem("forbidden", "this route needs a person token");
    if (!policy.scopes.some((scope) => principal.scopes.includes(scope))) {
      throw new Problem("scope_missing", `the key needs scope ${policy.scopes.join(" or ")}`);
    }
    return;
  }
  if (!policy.roles) throw new Problem("forbidden", "this route needs a source key");
  if (!hasRole(principal.roles, policy.roles)) {
    throw new Problem("forbidden", `the person needs role ${policy.roles.join(" or ")}`);
  }
}

export function hasRole(held: readonly Role[], needed: readonly Role[]): boolean {
  return held.includes("admin") || needed.some((role) => held.includes(role));
}

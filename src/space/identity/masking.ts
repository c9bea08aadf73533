import type { Principal } from "../../auth/policy";
import type { Role } from "../../contract/common";

/** How much of an identifier value a caller sees (DESIGN 3.5). */
export type Visibility = "whole" | "masked" | "none";

const ROLE_VISIBILITY: Record<Role, Visibility> = {
  admin: "whole",
  security: "whole",
  review: "masked",
  integration: "masked",
  vendor: "masked",
  analysis: "none",
};

const REVEAL: Record<Visibility, number> = { none: 0, masked: 1, whole: 2 };

/** A person with several roles sees the most any of them reveals. */
export function visibilityOf(principal: Principal): Visibility {
  if (principal.kind === "key") {
    if (principal.scopes.includes("identify")) return "whole";
    return principal.scopes.includes("context") ? "masked" : "none";
  }
  let best: Visibility = "none";
  for (const role of principal.roles) {
    const seen = ROLE_VISIBILITY[role];
    if (REVEAL[seen] > REVEAL[best]) best = seen;
  }
  return best;
}

const HIDDEN = "****";

/** `+*******0100`, `j***@example.com`, `****5678`; `null` when the caller sees nothing. */
export function maskValue(type: string, value: string, visibility: Visibility): string | null {
  if (visibility === "whole") return value;
  if (visibility === "none") return null;
  if (type === "phone_e164") return maskPhone(value);
  if (type === "email") return maskEmail(value);
  return maskTail(value);
}

/** One `*` per hidden digit; a number of 4 digits or fewer shows none of them. */
function maskPhone(value: string): string {
  const digits = value.replace(/\D/g, "");
  if (digits.length <= 4) return `+${HIDDEN}`;
  return `+${"*".repeat(digits.length - 4)}${digits.slice(-4)}`;
}

function maskEmail(value: string): string {
  const at = value.lastIndexOf("@");
  if (at <= 0) return maskTail(value);
  // By code point, so that a first character outside the BMP is not cut in half.
  const [first] = Array.from(value.slice(0, at));
  return `${first}***${value.slice(at)}`;
}

function maskTail(value: string): string {
  const chars = Array.from(value);
  return chars.length <= 4 ? HIDDEN : `${HIDDEN}${chars.slice(-4).join("")}`;
}

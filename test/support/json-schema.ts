import { dereference, encodePointer, initialBaseURI, validate } from "@cfworker/json-schema";
import fc from "fast-check";
import { rewriteRefs } from "../../src/edge/mcp/schemas";

/**
 * Requests generated from the OpenAPI document itself (not from the zod schemas behind it),
 * since the document is what clients and models see. Covers the JSON Schema the document uses:
 * `$ref`, `type` (one or several), `enum`, `const`, `anyOf`/`oneOf` (alternatives), `allOf`
 * with `anyOf`/`oneOf` of `required`/`properties` fragments (rules over several fields),
 * `not: {}` (a field that must be absent), string lengths, patterns and formats, number ranges,
 * array sizes and `uniqueItems`, objects with or without extra properties.
 */
export type Schema = { [keyword: string]: unknown };

type Lookup = ReturnType<typeof dereference>;

/** The document's components, with every `$ref` rewritten to `#/$defs/<name>` for the validator. */
export class SchemaSet {
  readonly defs: Record<string, Schema>;
  /**
   * Where the validator finds each component a `$ref` names, worked out once; each schema checked
   * adds its own places over it. (A `Validator` of the schema with the components copied in went
   * through all of them again for every new schema, and a property makes thousands.)
   */
  #componentLookup: Lookup = Object.create(null);
  #lookups = new WeakMap<Schema, Lookup>();

  constructor(components: Record<string, unknown>) {
    this.defs = rewriteRefs(components) as Record<string, Schema>;
    for (const [name, schema] of Object.entries(this.defs)) {
      dereference(schema, this.#componentLookup, initialBaseURI, `/$defs/${encodePointer(name)}`);
    }
  }

  /** A schema from the document, with its `$ref`s rewritten like the components'. */
  adopt(schema: unknown): Schema {
    return rewriteRefs(schema) as Schema;
  }

  resolve(schema: Schema): Schema {
    let current = schema;
    for (let depth = 0; typeof current.$ref === "string"; depth++) {
      if (depth > 20) throw new Error(`unresolvable $ref ${String(schema.$ref)}`);
      const name = current.$ref.slice("#/$defs/".length);
      const target = this.defs[name];
      if (!target) throw new Error(`no component ${name}`);
      current = target;
    }
    return current;
  }

  valid(schema: Schema, value: unknown): boolean {
    let lookup = this.#lookups.get(schema);
    if (!lookup) {
      lookup = dereference(schema, Object.create(this.#componentLookup));
      this.#lookups.set(schema, lookup);
    }
    return validate(value, schema, "2020-12", lookup, true).valid;
  }
}

/** Where a string goes decides which characters it may hold. */
export type StringUse = "json" | "url" | "header";

const MAX_GENERATED_ITEMS = 4;
const MAX_GENERATED_LENGTH = 40;

/**
 * Each schema's arbitrary, built once per use. Building one is slow (fast-check works out each
 * string arbitrary's edge cases when it is made) and an object with rules was rebuilt for every
 * value; drawing from a built one again generates exactly what a new one would. A schema object
 * belongs to one set.
 */
const built = new WeakMap<Schema, Map<StringUse, fc.Arbitrary<unknown>>>();

/** Values valid against `schema`, generated from its keywords and checked by the validator. */
export function arbitraryOf(set: SchemaSet, schema: Schema, use: StringUse = "json"): fc.Arbitrary<unknown> {
  let uses = built.get(schema);
  if (!uses) {
    uses = new Map();
    built.set(schema, uses);
  }
  let arbitrary = uses.get(use);
  if (!arbitrary) {
    const node = set.resolve(schema);
    const unchecked = build(set, node, use);
    arbitrary = needsCheck(node) ? unchecked.filter((value) => set.valid(node, value)) : unchecked;
    uses.set(use, arbitrary);
  }
  return arbitrary;
}

/** Combinations the generator does not reason about are checked afterwards by the validator. */
function needsCheck(node: Schema): boolean {
  return ["allOf", "anyOf", "oneOf", "not", "propertyNames"].some((keyword) => keyword in node);
}

function build(set: SchemaSet, node: Schema, use: StringUse): fc.Arbitrary<unknown> {
  if ("const" in node) return fc.constant(node.const);
  if (Array.isArray(node.enum)) return fc.constantFrom(...node.enum);
  const alternatives = (node.anyOf ?? node.oneOf) as Schema[] | undefined;
  if (alternatives && !isObjectNode(node)) {
    return fc.oneof(...alternatives.map((alternative) => arbitraryOf(set, alternative, use)));
  }
  const types = typesOf(node);
  if (types.length > 1) return fc.oneof(...types.map((type) => build(set, { ...node, type }, use)));
  switch (types[0]) {
    case "object":
      return objectOf(set, node, use);
    case "array": {
      const items = arbitraryOf(set, (node.items as Schema) ?? {}, use);
      const sizes = {
        minLength: Number(node.minItems ?? 0),
        maxLength: Math.min(Number(node.maxItems ?? MAX_GENERATED_ITEMS), Number(node.minItems ?? 0) + MAX_GENERATED_ITEMS),
      };
      return node.uniqueItems === true
        ? fc.uniqueArray(items, { ...sizes, selector: (value) => JSON.stringify(value) })
        : fc.array(items, sizes);
    }
    case "string":
      return stringOf(node, use);
    case "integer":
      return fc.integer({
        min: Math.max(Number(node.minimum ?? -1e9), Number.MIN_SAFE_INTEGER),
        max: Math.min(Number(node.maximum ?? 1e9), Number.MAX_SAFE_INTEGER),
      });
    case "number":
      return fc.double({
        min: Number(node.minimum ?? -1e9),
        max: Number(node.maximum ?? 1e9),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function isObjectNode(node: Schema): boolean {
  return node.type === "object" || "properties" in node;
}

function typesOf(node: Schema): string[] {
  if (Array.isArray(node.type)) return node.type as string[];
  if (typeof node.type === "string") return [node.type];
  if ("properties" in node) return ["object"];
  return [];
}

/**
 * An object: required fields always, optional ones sometimes. A rule fragment (`anyOf`/`oneOf`
 * of `required`/`properties`, alone or under `allOf`) is met by taking one of its alternatives
 * into the fields before generating; the validator then checks the whole.
 */
function objectOf(set: SchemaSet, node: Schema, use: StringUse): fc.Arbitrary<unknown> {
  const fragments: Schema[][] = [];
  for (const rule of [node, ...((node.allOf as Schema[]) ?? [])]) {
    const options = (rule.anyOf ?? rule.oneOf) as Schema[] | undefined;
    if (options) fragments.push(options);
  }
  // One arbitrary per combination of alternatives, made when first chosen.
  const byChoice = new Map<string, fc.Arbitrary<unknown>>();
  return fc.tuple(...fragments.map((options) => fc.constantFrom(...options))).chain((chosen) => {
    const key = chosen.map((fragment, at) => fragments[at]?.indexOf(fragment)).join();
    let arbitrary = byChoice.get(key);
    if (!arbitrary) {
      arbitrary = objectWith(set, node, chosen, use);
      byChoice.set(key, arbitrary);
    }
    return arbitrary;
  });
}

/** An object with the chosen alternative of each of its rule fragments taken into its fields. */
function objectWith(set: SchemaSet, node: Schema, chosen: Schema[], use: StringUse): fc.Arbitrary<unknown> {
  const properties: Record<string, Schema> = { ...((node.properties as Record<string, Schema>) ?? {}) };
  const required = new Set((node.required as string[]) ?? []);
  for (const fragment of chosen) {
    for (const name of (fragment.required as string[]) ?? []) required.add(name);
    for (const [name, extra] of Object.entries((fragment.properties as Record<string, Schema>) ?? {})) {
      properties[name] = { ...set.resolve(properties[name] ?? {}), ...extra };
    }
  }
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (isForbidden(property)) continue;
    fields[name] = arbitraryOf(set, property, use);
  }
  const known = fc.record(fields, { requiredKeys: [...required].filter((name) => name in fields) });
  const extra = node.additionalProperties;
  if (extra === false || (extra === undefined && "properties" in node)) return known;
  const keys = propertyNamesOf(node);
  const values = extra && typeof extra === "object" ? arbitraryOf(set, extra as Schema, use) : fc.jsonValue({ maxDepth: 1 });
  return fc.tuple(known, fc.dictionary(keys, values, { maxKeys: 3 })).map(([fixed, free]) => ({ ...free, ...(fixed as object) }));
}

function isForbidden(schema: Schema): boolean {
  const not = schema.not;
  return typeof not === "object" && not !== null && Object.keys(not).length === 0;
}

function propertyNamesOf(node: Schema): fc.Arbitrary<string> {
  const names = (node.propertyNames as Schema) ?? {};
  return fc
    .string({ minLength: Number(names.minLength ?? 0), maxLength: Math.min(Number(names.maxLength ?? 20), 20) })
    .filter((name) => name !== "__proto__");
}

const CHARACTERS: Record<StringUse, fc.StringConstraints["unit"]> = {
  json: "binary",
  url: "grapheme",
  header: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
};

function stringOf(node: Schema, use: StringUse): fc.Arbitrary<string> {
  const minLength = Number(node.minLength ?? 0);
  const maxLength = Number(node.maxLength ?? Number.POSITIVE_INFINITY);
  const fits = (value: string) => {
    const length = [...value].length;
    return length >= minLength && length <= maxLength;
  };
  if (node.format === "date-time") return dateTime();
  if (node.format === "date")
    return fc
      .date({ min: new Date("0001-01-01"), max: new Date("9999-12-31"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
  if (node.format === "uuid") return fc.uuid();
  if (typeof node.pattern === "string") {
    return fc.stringMatching(new RegExp(node.pattern)).filter((value) => fits(value) && allowedIn(use, value));
  }
  const generatedMax = Math.min(maxLength, minLength + MAX_GENERATED_LENGTH);
  return fc
    .string({ unit: CHARACTERS[use], minLength, maxLength: generatedMax })
    .filter((value) => fits(value) && allowedIn(use, value));
}

/** Header values are visible ASCII with no surrounding space; a path segment is never `.` or `..`. */
function allowedIn(use: StringUse, value: string): boolean {
  if (use === "header") return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value);
  if (use === "url") return value !== "." && value !== "..";
  return true;
}

/** RFC 3339 as the document declares it: `Z` or an offset, 0 to 9 fractional digits, years 1000 to 2999. */
function dateTime(): fc.Arbitrary<string> {
  const instant = fc.date({ min: new Date("1000-01-02T00:00:00Z"), max: new Date("2999-12-30T00:00:00Z"), noInvalidDate: true });
  const offset = fc.oneof(
    fc.constant("Z"),
    fc
      .tuple(fc.constantFrom("+", "-"), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([sign, hours, minutes]) => `${sign}${pad(hours)}:${pad(minutes)}`),
  );
  const fraction = fc.oneof(fc.constant(""), fc.stringMatching(/^\.\d{1,9}$/));
  return fc.tuple(instant, offset, fraction).map(([date, zone, digits]) => {
    const minutes =
      zone === "Z" ? 0 : (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
    const local = new Date(date.getTime() + minutes * 60_000).toISOString().slice(0, 19);
    return `${local}${digits}${zone}`;
  });
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

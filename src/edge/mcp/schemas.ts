import { OpenAPIHono } from "@hono/zod-openapi";
import type { McpTool } from "./tools";

type JsonObject = { [key: string]: unknown };
export type ToolInputSchema = JsonObject & { type: "object" };

const COMPONENT_REF = "#/components/schemas/";

/**
 * Each tool's input as JSON Schema, made by the generator that makes `/v1/openapi.json` from the
 * same zod schema, so a model reads the rules the server checks (code-point lengths, the time
 * rule, the rules over several fields). Components it refers to travel in `$defs`.
 */
export function toolInputSchemas(tools: readonly McpTool[]): Map<string, ToolInputSchema> {
  const generator = new OpenAPIHono();
  for (const tool of tools) {
    generator.openAPIRegistry.registerPath({
      method: "post",
      path: `/${tool.name}`,
      request: { body: { content: { "application/json": { schema: tool.input } }, required: true } },
      responses: {},
    });
  }
  const document = generator.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "tools", version: "1" } });
  const components = (document.components?.schemas ?? {}) as Record<string, JsonObject>;
  const schemas = new Map<string, ToolInputSchema>();
  for (const tool of tools) {
    const operation = document.paths?.[`/${tool.name}`]?.post as
      | { requestBody?: { content?: Record<string, { schema?: JsonObject }> } }
      | undefined;
    const root = resolve(operation?.requestBody?.content?.["application/json"]?.schema ?? {}, components);
    if (root.type !== "object") throw new Error(`the input of tool ${tool.name} is not an object schema`);
    const defs: Record<string, unknown> = {};
    for (const name of referencedComponents(root, components)) defs[name] = rewriteRefs(components[name]);
    const schema = rewriteRefs(root) as ToolInputSchema;
    schemas.set(tool.name, Object.keys(defs).length > 0 ? { ...schema, $defs: defs } : schema);
  }
  return schemas;
}

function resolve(schema: JsonObject, components: Record<string, JsonObject>): JsonObject {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith(COMPONENT_REF)) return schema;
  const target = components[ref.slice(COMPONENT_REF.length)];
  if (!target) throw new Error(`unknown component ${ref}`);
  return resolve(target, components);
}

/** The components a schema refers to, directly or through one another. */
function referencedComponents(root: unknown, components: Record<string, JsonObject>): Set<string> {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(COMPONENT_REF)) {
        const name = value.slice(COMPONENT_REF.length);
        if (!found.has(name)) {
          found.add(name);
          visit(components[name]);
        }
      } else {
        visit(value);
      }
    }
  };
  visit(root);
  return found;
}

/** A copy with OpenAPI's component references turned into JSON Schema's `$defs` references. */
export function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== "object") return node;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    copy[key] =
      key === "$ref" && typeof value === "string" && value.startsWith(COMPONENT_REF)
        ? `#/$defs/${value.slice(COMPONENT_REF.length)}`
        : rewriteRefs(value);
  }
  return copy;
}

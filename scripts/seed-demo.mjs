// Seeds a demo tenant through the control API: tenant, admin, project, space `demo` (or
// `demo-xxxx` when that name is taken), an agent source and a key with every data scope.
// Used by `npm run dev` and by the benchmark.
import { randomBytes } from "node:crypto";

async function call(origin, method, path, { token, operator, body, idempotencyKey } = {}) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (operator) headers["x-service-operator-token"] = operator;
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  const response = await fetch(`${origin}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status} ${answer.code}: ${answer.detail}`);
  return answer;
}

export async function seedDemo(origin, operatorToken) {
  const email = `admin+${randomBytes(3).toString("hex")}@demo.test`;
  const password = randomBytes(12).toString("base64url");
  const { tenant } = await call(origin, "POST", "/control/v1/tenants", {
    operator: operatorToken,
    body: { name: "Demo tenant", admin: { email, password, name: "Demo admin" } },
  });
  const { token } = await call(origin, "POST", "/control/v1/auth/login", { body: { email, password } });
  const project = await call(origin, "POST", "/control/v1/projects", { token, body: { name: "Demo project" } });
  // `demo`, unless local state from before (without this script's record) already holds one.
  const created = await call(origin, "POST", `/control/v1/projects/${project.project_id}/spaces`, {
    token,
    body: { name: "demo" },
  }).catch(() =>
    call(origin, "POST", `/control/v1/projects/${project.project_id}/spaces`, {
      token,
      body: { name: `demo-${randomBytes(2).toString("hex")}` },
    }),
  );
  const space = created.name;
  const source = await call(origin, "POST", `/control/v1/spaces/${created.space_id}/sources`, {
    token,
    body: {
      name: "Demo agent",
      kind: "agent",
      act: { operations: ["create", "update", "promise", "cancel"], object_types: ["order", "ticket", "appointment"] },
    },
  });
  const key = await call(origin, "POST", `/control/v1/sources/${source.source_id}/keys`, {
    token,
    idempotencyKey: crypto.randomUUID(),
    body: { scopes: ["track", "act", "context", "search", "identify", "admin"], mode: "live" },
  });
  return {
    space,
    base_url: created.base_url,
    key: key.key,
    admin: { email, password },
    space_id: created.space_id,
    tenant_id: tenant.tenant_id,
  };
}

import { beforeAll, it } from "vitest";
import { call, createSpace, type Space } from "../support/seed";

let space: Space;
beforeAll(async () => {
  space = await createSpace();
});

async function show(label: string, r: Response) {
  console.log(label, r.status, r.headers.get("content-type"), (await r.text()).slice(0, 400));
}

it("probe", async () => {
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  for (const n of [1000, 5000, 20000, 100000]) {
    await show(
      `deep${n}`,
      await call("POST", `/spaces/${space.name}/v1/batch`, {
        token: space.key,
        rawBody: `{"items":[${deep(n)}]}`,
        headers: { "content-type": "application/json" },
      }),
    );
    await show(
      `deepobj${n}`,
      await call("POST", `/spaces/${space.name}/v1/batch`, {
        token: space.key,
        rawBody: `{"items":[{"type":"event","attributes":${'{"a":'.repeat(n)}1${"}".repeat(n)}}]}`,
        headers: { "content-type": "application/json" },
      }),
    );
    await show(
      `ctl${n}`,
      await call("POST", `/control/v1/projects`, {
        token: space.tenant.token,
        rawBody: `{"name":${deep(n)}}`,
        headers: { "content-type": "application/json" },
      }),
    );
  }
  const longKey = `zq${"x".repeat(200)}`;
  await show(
    "longkey",
    await call("POST", `/spaces/${space.name}/v1/batch`, {
      token: space.key,
      body: {
        items: [
          {
            type: "event",
            idempotency_key: "k1",
            occurred_at: new Date().toISOString(),
            handles: [{ type: "phone", value: "1" }],
            content: { text: "x" },
            attributes: { [longKey]: 1, zqshortkey: { zqnested: 1 }, "": 2 },
          },
        ],
      },
    }),
  );
  await show(
    "proto",
    await call("POST", `/spaces/${space.name}/v1/batch`, {
      token: space.key,
      rawBody: `{"items":[{"type":"event","__proto__":{"zqpolluted":1},"constructor":{"prototype":1}}],"__proto__":{"x":1}}`,
      headers: { "content-type": "application/json" },
    }),
  );
  await show(
    "proto2",
    await call("POST", `/spaces/${space.name}/v1/batch`, {
      token: space.key,
      rawBody: `{"__proto__":{"items":[1]}}`,
      headers: { "content-type": "application/json" },
    }),
  );
  await show(
    "unknownfield",
    await call("POST", `/spaces/${space.name}/v1/batch`, {
      token: space.key,
      body: {
        items: [
          { type: "event", zqunknown: 1, handles: [{ type: "phone", value: "zqvalue", zqextra: 1 }], subject: { zqsub: 1 } },
        ],
      },
    }),
  );
  await show(
    "people",
    await call("POST", `/control/v1/people`, {
      token: space.tenant.token,
      body: { email: "zqbad", password: 1, roles: ["zqrole"], zqextra: 1, vendor_sources: ["zqvs"] },
    }),
  );
  await show(
    "cfg",
    await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, {
      token: space.tenant.token,
      body: { values: { session_windows: { zqwin: 1, whatsapp: "zqx" }, history_text_level: "zqlvl" } },
    }),
  );
  await show(
    "cfg404",
    await call("PUT", `/control/v1/spaces/zqnotaspace/config`, { token: space.tenant.token, body: { values: {} } }),
  );
  await show(
    "keys404",
    await call("POST", `/control/v1/sources/zqnosrc/keys`, {
      token: space.tenant.token,
      body: { scopes: ["track"] },
      headers: { "idempotency-key": "zqidem" },
    }),
  );
  await show(
    "keysLong",
    await call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
      token: space.tenant.token,
      body: { scopes: ["track"] },
      headers: { "idempotency-key": "zq".repeat(200) },
    }),
  );
  await show(
    "keysEmpty",
    await call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
      token: space.tenant.token,
      body: { scopes: ["track"] },
      headers: { "idempotency-key": "" },
    }),
  );
  await show(
    "idlong",
    await call("PUT", `/control/v1/spaces/${"zq".repeat(100)}/config`, { token: space.tenant.token, body: { values: {} } }),
  );
  await show(
    "bigitem",
    await call("POST", `/spaces/${space.name}/v1/batch`, {
      token: space.key,
      body: { items: [{ type: "event", x: "zq".repeat(600000) }] },
    }),
  );
  await show(
    "bigbody",
    await call("POST", `/spaces/${space.name}/v1/batch`, {
      token: space.key,
      body: { items: [{ type: "event", x: "zq".repeat(1300000) }] },
    }),
  );
  await show("noct", await call("POST", `/spaces/${space.name}/v1/batch`, { token: space.key, rawBody: "zqhello" }));
  await show(
    "badutf",
    await call("POST", `/spaces/${space.name}/v1/batch`, {
      token: space.key,
      rawBody: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      headers: { "content-type": "application/json" },
    }),
  );
  await show("get", await call("GET", `/spaces/${space.name}/v1/batch`, { token: space.key }));
});

// A support conversation over two channels, through the typed client: a customer writes on
// WhatsApp, the agent reads the context, answers and promises an update; the customer comes back
// by e-mail, and the agent sees both channels, the facts and its open promise. Every agent turn
// reads the context first and carries its `context_stamp`; at the end the space's context-use
// report counts those turns.
//
//   npm run dev                                   (prints the demo key)
//   npm run client:build                          (once: the client's dist/)
//   CMS_KEY=<key> node examples/agent-loop.mjs    (or: --key <key> [--base-url <url>])
//
// The base URL defaults to http://127.0.0.1:8787/spaces/<the space named in the key>. The key
// needs the scopes track, act, context, identify and admin (the demo key has them all), and its
// source must be allowed to `act` with `promise` on `order` (the demo source is). Runs offline.
import { createMemoryClient } from "@customer-memory/client";

/**
 * Runs the conversation and prints what the agent saw. `fetch` is the transport (the global one
 * from the command line, `SELF.fetch` in the Workers test); `settle` waits until what was written
 * is compiled into memory (default: read the context until nothing is pending).
 * @param {{
 *   baseUrl: string,
 *   key: string,
 *   fetch?: (request: Request) => Promise<Response>,
 *   log?: (line: string) => void,
 *   settle?: () => Promise<unknown>,
 * }} options
 */
export async function run({ baseUrl, key, fetch = (request) => globalThis.fetch(request), log = console.log, settle }) {
  const client = createMemoryClient({ baseUrl, key, fetch });
  const run = client.newKey().slice(-6);
  // A customer of this run: +44 7700 9xxxxx is a range kept for fiction.
  const phone = { type: "phone_e164", value: `+4477009${String(Number.parseInt(run, 16) % 100_000).padStart(5, "0")}` };
  const email = { type: "email", value: `alex.${run}@example.com` };
  const whatsapp = { channel: "whatsapp", conversation_id: `wa-${run}` };
  const mail = { channel: "email", conversation_id: `mail-${run}` };
  const waitForMemory = settle ?? (() => compiled(client, phone));
  const turns = [];

  const say = (where, handle, role, text, extra = {}) => ({
    type: "event",
    ...where,
    handles: [handle],
    speaker: { role },
    content: { type: "text", text },
    occurred_at: new Date().toISOString(),
    ...extra,
  });

  /** Writes items (keys made by the client), then waits for memory. */
  const write = async (items) => {
    const answer = must(await client.batch(items), "POST /v1/batch");
    if (answer.errors.length > 0) throw new Error(`batch refused items: ${JSON.stringify(answer.errors)}`);
    await waitForMemory();
  };

  /** One agent turn: read the context, show it, answer with its stamp (and what `extra()` adds). */
  const agentTurn = async (where, handle, reply, extra = () => []) => {
    const context = must(await client.context({ handle }), "POST /v1/context");
    const stamp = client.stampFrom(context);
    turns.push(show(log, where.channel, context));
    log(`  agent (context_stamp ${short(stamp.etag)} at ${stamp.injected_at}): ${reply}`);
    const answer = say(where, handle, "ai_agent", reply, { context_stamp: stamp });
    await write([answer, ...extra()]);
  };

  log(`customer ${phone.value} / ${email.value}\n`);

  log("── whatsapp");
  const first = `Hi! My order number is A-1042. It still has not arrived, where is it? My email is ${email.value}`;
  log(`  customer: ${first}`);
  await write([say(whatsapp, phone, "customer", first)]);
  const due = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
  await agentTurn(
    whatsapp,
    phone,
    "Sorry about the wait! Order A-1042 left our warehouse late. I will email you its tracking link by tomorrow.",
    () => [
      // The promise the reply makes, as an action on the order (the source may `act` with `promise`).
      say(whatsapp, phone, "ai_agent", "Promised: tracking link for A-1042 by e-mail", {
        kind: "action",
        action: { operation: "promise", object_type: "order", object_id: "A-1042", due_at: due },
      }),
      // The customer gave their e-mail: both handles are the same person.
      { type: "identify", handles: [phone, email], method: "agent" },
    ],
  );

  log("\n── email");
  const second = "Hello again, any news on order A-1042? I prefer email over WhatsApp.";
  log(`  customer: ${second}`);
  await write([say(mail, email, "customer", second)]);
  await agentTurn(mail, email, "Here it is: A-1042 is with the courier and arrives on Thursday. I will keep you posted here.");

  const report = must(await client.raw.GET("/v1/measurement/context-use"), "GET /v1/measurement/context-use");
  const usage = report.days.reduce(
    (sum, day) => ({
      agent_turns: sum.agent_turns + day.agent_turns,
      current: sum.current + day.current,
      late: sum.late + day.late,
    }),
    { agent_turns: 0, current: 0, late: 0 },
  );
  log(
    `\ncontext use ${report.from}..${report.to}: ${usage.agent_turns} agent turns, ${usage.current} current, ${usage.late} late`,
  );
  return { phone, email, turns, usage };
}

/** What the agent saw: live items, facts, open promises. */
function show(log, channel, context) {
  const seen = {
    channel,
    live: context.live.map((item) => `[${item.channel}] ${item.speaker_role}: ${item.text}`),
    facts: Object.fromEntries(context.memory.facts.map((fact) => [fact.key, fact.value])),
    promises: context.memory.promises
      .filter((promise) => promise.status === "open")
      .map((promise) => `${promise.by}: ${promise.what}, due ${promise.due_at}`),
  };
  log(`  agent read the context (etag ${short(context.etag)}, memory v${context.compiled.version}):`);
  log(`    live:\n${seen.live.map((line) => `      ${line}`).join("\n") || "      (none)"}`);
  log(
    `    facts:    ${
      Object.entries(seen.facts)
        .map(([key, value]) => `${key} = ${value}`)
        .join("; ") || "(none)"
    }`,
  );
  log(`    promises: ${seen.promises.join("; ") || "(none open)"}`);
  return seen;
}

/** An etag's first characters, for the log. */
const short = (etag) => `${etag.replaceAll('"', "").slice(0, 8)}…`;

/** Polls the context until every stored event is compiled (a compile follows a batch within ~200 ms). */
async function compiled(client, handle) {
  for (let poll = 0; poll < 40; poll++) {
    const { data } = await client.context({ handle });
    if (data && "compiled" in data && data.compiled.pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("memory was not compiled within 10 s");
}

/** The answer's data, or an error naming the problem's code. */
function must(result, what) {
  if (result.error !== undefined || result.data === undefined) {
    throw new Error(`${what} answered ${result.response.status} ${result.error?.code ?? ""}: ${result.error?.detail ?? ""}`);
  }
  return result.data;
}

function option(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

// Run from the command line (not when a test imports `run`).
if (typeof process !== "undefined" && process.argv?.[1] !== undefined && import.meta.filename === process.argv[1]) {
  const key = option("--key") ?? process.env.CMS_KEY;
  if (!key) {
    console.error("usage: CMS_KEY=<source key> node examples/agent-loop.mjs [--base-url <url>]  (npm run dev prints a key)");
    process.exit(2);
  }
  // A key is <prefix>_<live|test>_<region>_<space>_<key_id>_<secret>: it names its space.
  const space = key.split("_")[3];
  const baseUrl = option("--base-url") ?? process.env.CMS_BASE_URL ?? `http://127.0.0.1:8787/spaces/${space}`;
  run({ baseUrl, key }).catch((error) => {
    // A refused connection surfaces as a bare "fetch failed": say where, and how to point elsewhere.
    const unreachable = error instanceof TypeError && error.message === "fetch failed";
    console.error(
      unreachable
        ? `cannot reach the service at ${baseUrl} (${error.cause?.code ?? error.cause?.message ?? "no answer"}): ` +
            "is `npm run dev` running? Set --base-url or CMS_BASE_URL (and PORT for npm run dev) to use another address."
        : error.message,
    );
    process.exit(1);
  });
}

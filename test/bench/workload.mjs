// The benchmark's workload: 500-item batches of realistic `event` items (DESIGN 3.4), built
// before any timing starts. Deterministic text from a seeded generator; every idempotency_key is
// unique across the run (`<run>-<pool>-<batch>-<item>`).

const CHANNELS = ["whatsapp", "voice", "app", "email", "ticket", "crm"];
const WORDS = (
  "hello order delivery tracking refund invoice payment address account password appointment " +
  "tomorrow yesterday please thanks question problem package arrived damaged missing replace " +
  "schedule reschedule confirm cancel update status ticket number support agent customer phone " +
  "email receipt warranty subscription renewal discount coupon balance card charge twice store " +
  "pickup courier window morning afternoon evening weekend urgent waiting still nobody called back"
).split(" ");
const CANONICAL_TYPES = ["order.shipped", "order.delivered", "payment.failed", "ticket.opened", "call.missed", "session.started"];
const OPERATIONS = ["create", "update", "promise", "cancel"];
const OBJECT_TYPES = ["order", "ticket", "appointment"];
const TEXT_BYTES = 300;
const CUSTOMERS = 2_000;

/** mulberry32: small, fast, seeded. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Workload {
  /** @param {{ run: string, batchItems: number, seed?: number }} options */
  constructor({ run, batchItems, seed = 1 }) {
    this.run = run;
    this.batchItems = batchItems;
    this.rand = random(seed);
    this.batches = 0;
    this.fresh = 0;
  }

  /** `count` request bodies (UTF-8 bytes, ready to send) under the key prefix `pool`. */
  bodies(pool, count) {
    const out = [];
    for (let i = 0; i < count; i++) out.push(Buffer.from(JSON.stringify({ items: this.items(pool) })));
    return out;
  }

  /** One batch of items, with keys no other batch of this workload uses. */
  items(pool) {
    const batch = this.batches++;
    const now = Date.now();
    const items = [];
    for (let i = 0; i < this.batchItems; i++) items.push(this.#event(`${this.run}-${pool}-${batch}-${i}`, now));
    return items;
  }

  #pick(list) {
    return list[Math.floor(this.rand() * list.length)];
  }

  #int(below) {
    return Math.floor(this.rand() * below);
  }

  #text() {
    let text = "";
    while (text.length < TEXT_BYTES) text += `${text ? " " : ""}${this.#pick(WORDS)}`;
    return `${text.slice(0, TEXT_BYTES - 1)}.`;
  }

  /**
   * 1 to 3 handles of one customer (phone, e-mail, CRM id); a fifth of them new to the space, so
   * identity resolves known handles and creates profiles and handles at the rate the issue names.
   */
  #handles(customer, channel) {
    const all = [
      { type: "phone_e164", value: `+4477009${String(customer).padStart(5, "0")}` },
      { type: "email", value: `customer${customer}@example.com` },
      { type: "system_id", scope: "crm", value: `crm-${customer}` },
    ];
    if (channel === "email") all.unshift(all.splice(1, 1)[0]);
    return all
      .slice(0, 1 + this.#int(3))
      .map((handle) =>
        this.rand() < 0.2 ? { type: "system_id", scope: "crm", value: `new-${this.run}-${this.fresh++}` } : handle,
      );
  }

  #event(idempotencyKey, now) {
    const channel = this.#pick(CHANNELS);
    // A pool the warm-up covers, so that in the measured slices the handles are known but for the fresh fifth.
    const customer = this.#int(CUSTOMERS);
    const handles = this.#handles(customer, channel);
    const roll = this.rand();
    const kind = roll < 0.8 ? "message" : roll < 0.92 ? "system_event" : "action";
    const occurredAt = new Date(now - this.#int(3_600_000)).toISOString().replace(/\.\d+Z$/, "Z");
    const item = {
      type: "event",
      idempotency_key: idempotencyKey,
      kind,
      channel,
      conversation_id: `${channel}-conv-${Math.floor(customer / 4)}`,
      handles,
    };
    if (kind === "message") {
      item.speaker = { role: this.#pick(["customer", "customer", "ai_agent", "human_agent"]) };
    } else if (kind === "system_event") {
      item.speaker = { role: "system" };
      item.canonical_type = this.#pick(CANONICAL_TYPES);
    } else {
      item.speaker = { role: this.#pick(["ai_agent", "human_agent"]) };
      item.action = {
        operation: this.#pick(OPERATIONS),
        object_type: this.#pick(OBJECT_TYPES),
        object_id: `obj-${this.#int(1_000_000)}`,
      };
    }
    item.content = { type: "text", text: this.#text() };
    item.occurred_at = occurredAt;
    return item;
  }
}

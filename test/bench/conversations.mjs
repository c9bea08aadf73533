// A conversational question set for search recall (issue 30), seeded: long multi-session
// conversations between customers and agents (greetings, small talk, several topics in a session,
// an agent who asks the customer to wait, typos), and questions about them as people ask, each
// answered by one turn.
//
// How it stays honest. A topic is a few concepts (the product, what happened to it, a day, an
// amount...). Every text, a turn or a question, says each concept in words drawn on its own from
// the concept's small table of synonyms and word forms ("arrive", "arrived", "get here",
// "delivery"...), so a question shares a word with its answer only as often as two people who
// talk about the same thing do, never because it was copied from it. Questions are written from
// their own frames ("when is my couch arriving?"), asking for what the answer turn holds. The
// answer is, as in real chats, most often the agent's turn after the customer's question (it
// says "it" for the product half the time), sometimes two turns after (the agent asks the
// customer to wait first), and sometimes a customer's statement answering an agent's question.
// Nothing here knows how the service searches.

/** A deterministic generator (LCG), so that every run writes the same conversations. */
export function rng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export const pickWith = (random) => (list) => list[Math.floor(random() * list.length)];

/**
 * A word as people choose it among its synonyms and forms: the first, the usual one, most often,
 * the others less the further down the list (Zipf's law: the k-th with weight 1/k).
 */
export const usualWith = (random) => (list) => {
  const total = list.reduce((sum, _, k) => sum + 1 / (k + 1), 0);
  let left = random() * total;
  for (let k = 0; k < list.length; k++) {
    left -= 1 / (k + 1);
    if (left < 0) return list[k];
  }
  return list.at(-1);
};

/**
 * Concepts: each a table of ways to say it, grouped by the form a frame needs. A family of
 * synonyms gives each of its word forms, so that a text picks a synonym and a form independently.
 */
export const PRODUCTS = [
  ["sofa", "couch", "settee"],
  ["kettle", "electric kettle"],
  ["laptop", "notebook", "computer"],
  ["fridge", "refrigerator", "fridge freezer"],
  ["television", "TV", "telly"],
  ["washing machine", "washer"],
  ["phone", "mobile", "handset", "smartphone"],
  ["blender", "food processor"],
  ["desk chair", "office chair", "chair"],
  ["headphones", "earphones", "headset"],
  ["vacuum cleaner", "hoover", "vacuum"],
  ["coffee machine", "espresso machine", "coffee maker"],
  ["mattress", "bed mattress"],
  ["bike", "bicycle", "e-bike"],
  ["lawn mower", "mower"],
  ["printer", "inkjet printer"],
];

export const CONCEPTS = {
  arrive: {
    base: ["arrive", "get here", "be delivered", "come", "turn up", "show up", "reach me"],
    past: ["arrived", "got here", "been delivered", "come", "turned up", "shown up", "reached me"],
    ing: ["arriving", "getting here", "being delivered", "coming", "turning up", "delivered"],
    noun: ["delivery", "arrival", "delivery date", "shipment", "delivery day"],
  },
  refund: {
    base: ["refund", "pay back", "reimburse", "return the money"],
    past: ["refunded", "paid back", "reimbursed", "returned the money"],
    noun: ["refund", "money back", "reimbursement", "repayment"],
  },
  move: {
    base: ["move", "relocate", "move house"],
    ing: ["moving", "relocating", "moving house"],
    noun: ["move", "relocation", "new address", "new home"],
  },
  warranty: { noun: ["warranty", "guarantee", "cover", "warranty cover"] },
  switch: {
    base: ["switch", "change", "move", "downgrade"],
    past: ["switched", "changed", "moved", "downgraded"],
    ing: ["switching", "changing", "moving", "downgrading"],
  },
  plan: { noun: ["plan", "subscription", "tariff", "package"] },
  technician: { noun: ["technician", "engineer", "repair person", "service engineer"] },
  visit: {
    base: ["visit", "come round", "come by", "call"],
    ing: ["visiting", "coming round", "coming by", "calling"],
    noun: ["visit", "appointment", "repair visit", "callout"],
  },
  login: {
    base: ["log in", "sign in", "get into my account", "access my account"],
    noun: ["login", "sign-in", "password", "account access"],
  },
  code: { noun: ["code", "reset code", "one-time code", "verification code", "PIN"] },
  sent: { past: ["sent", "texted", "messaged", "delivered"] },
  cancel: {
    base: ["cancel", "call off", "stop", "withdraw"],
    past: ["cancelled", "canceled", "called off", "stopped", "withdrawn"],
    noun: ["cancellation", "cancelling"],
  },
  broken: { adj: ["broken", "damaged", "cracked", "smashed", "faulty", "dented"] },
  replacement: {
    noun: ["replacement", "new one", "exchange", "substitute"],
    base: ["replace", "swap", "exchange"],
  },
  ship: { base: ["ship", "dispatch", "send", "post"], past: ["shipped", "dispatched", "sent", "posted"] },
  discount: { noun: ["discount", "voucher", "coupon", "promo code", "deal", "offer"] },
  collect: {
    base: ["collect", "pick up", "fetch", "get"],
    ing: ["collecting", "picking up", "fetching", "getting"],
  },
  store: { noun: ["store", "shop", "branch", "outlet"] },
  relative: { noun: ["daughter", "son", "husband", "wife", "neighbour", "brother", "sister"] },
  money: { noun: ["money", "amount", "sum", "cash"] },
  card: { noun: ["card", "credit card", "debit card", "bank card"] },
  years: { noun: ["years", "year"] },
  price: { noun: ["price", "cost", "fee", "charge"] },
  month: { noun: ["a month", "monthly", "per month", "each month"] },
  noise: { noun: ["noise", "rattle", "grinding sound", "buzzing", "banging"] },
  deliverTime: { noun: ["time to deliver", "delivery time", "time for the courier", "slot"] },
  work: { ing: ["working", "on shift", "at work", "doing night shifts"] },
};

export const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
export const TIMES = ["8 and 10", "9 and 12", "1 and 3", "2 and 5", "4 and 6", "10 and 2"];
export const CITIES = [
  "Leeds",
  "Bristol",
  "Porto",
  "Valencia",
  "Lyon",
  "Utrecht",
  "Cork",
  "Graz",
  "Malmo",
  "Turin",
  "Bilbao",
  "Ghent",
];
export const PLANS = ["Basic", "Lite", "Starter", "Essential", "Saver"];
export const MONTHS = ["March", "April", "June", "July", "September", "October"];

/**
 * Topics: `ask` the customer's turn, `wait` whether an agent's holding turn may come between,
 * `answer` the turn that answers (by `by`), `questions` how people later ask for it. Each is a
 * function of `say(concept, form)`, `pick(list)` and the topic's slots (`product`, ...).
 */
const TOPICS = [
  {
    ask: ({ say, product, pick }) =>
      pick([
        `Where is my ${product}? It was supposed to ${say("arrive", "base")} ${pick(DAYS)}.`,
        `Any news on my ${product} ${say("arrive", "noun")}?`,
        `Can you check when my ${product} will ${say("arrive", "base")}?`,
        `Hi, my ${product} still hasn't ${say("arrive", "past")}, what's going on?`,
      ]),
    answer: ({ say, it, day, time }) => `${it} will ${say("arrive", "base")} on ${day} between ${time}, the courier has it now.`,
    questions: ({ say, product, pick }) => [
      `When is my ${product} ${say("arrive", "ing")}?`,
      `What day did they say the ${product} would ${say("arrive", "base")}?`,
      `${pick(["the", "my"])} ${product} ${say("arrive", "noun")} day?`,
      `when will the ${product} ${say("arrive", "base")}`,
    ],
  },
  {
    ask: ({ say, product, pick }) =>
      pick([
        `I sent the ${product} back last week, has the ${say("refund", "noun")} gone through?`,
        `Did you ${say("refund", "base")} me for the ${product} yet?`,
        `I'm still waiting for my ${say("refund", "noun")} for the ${product}.`,
      ]),
    answer: ({ say, amount, card, day }) =>
      `Yes, ${amount} euros was ${say("refund", "past")} to your ${card} on ${day}, it can take 3 days to show.`,
    questions: ({ say, product, pick }) => [
      `How much ${say("money", "noun")} did I get back for the ${product}?`,
      `was the ${product} ${say("refund", "past")}?`,
      `When was I ${say("refund", "past")} for the ${product}?`,
      `${pick(["status of", "what happened with"])} the ${say("refund", "noun")} for my ${product}`,
    ],
  },
  {
    by: "customer",
    once: true,
    prompt: () => "Is there anything else we should update on your account?",
    answer: ({ say, city }) => `Yes, I'm ${say("move", "ing")} to ${city} next month, so please use the new address after that.`,
    questions: ({ say }) => [
      `Where did I say I was ${say("move", "ing")}?`,
      `Which city is my ${say("move", "noun")} in?`,
      `what town is the customer ${say("move", "ing")} to`,
    ],
  },
  {
    ask: ({ say, product, pick }) =>
      pick([
        `How long is the ${say("warranty", "noun")} on my ${product}?`,
        `Is my ${product} still under ${say("warranty", "noun")}?`,
        `Does the ${say("warranty", "noun")} cover my ${product} if it stops working?`,
      ]),
    answer: ({ years }) => `It is covered for ${years} years from the purchase date, parts and labour included.`,
    questions: ({ say, product }) => [
      `How many years of ${say("warranty", "noun")} does the ${product} have?`,
      `is my ${product} still under ${say("warranty", "noun")}`,
      `${product} ${say("warranty", "noun")} length`,
    ],
  },
  {
    once: true,
    ask: ({ say, pick }) =>
      pick([
        `I'd like to ${say("switch", "base")} to a cheaper ${say("plan", "noun")}, please.`,
        `Can I ${say("switch", "base")} my ${say("plan", "noun")}? It's too expensive.`,
      ]),
    answer: ({ say, plan, price, month }) =>
      `I've ${say("switch", "past")} you to the ${plan} ${say("plan", "noun")} at ${price} euros ${say("month", "noun")}, starting in ${month}.`,
    questions: ({ say }) => [
      `Which ${say("plan", "noun")} am I on now?`,
      `What is the ${say("price", "noun")} after ${say("switch", "ing")} ${say("plan", "noun")}?`,
      `when does my new ${say("plan", "noun")} start?`,
    ],
  },
  {
    ask: ({ say, product, pick }) =>
      pick([
        `My ${product} is making a strange ${say("noise", "noun")}, can someone ${say("visit", "base")} to look at it?`,
        `Could you send a ${say("technician", "noun")}? The ${product} keeps making a ${say("noise", "noun")}.`,
      ]),
    wait: true,
    answer: ({ say, day, hour }) =>
      `A ${say("technician", "noun")} will ${say("visit", "base")} on ${day} at ${hour}, please be home.`,
    questions: ({ say, product }) => [
      `When is the ${say("technician", "noun")} ${say("visit", "ing")} to look at the ${product}?`,
      `what time is the ${product} ${say("visit", "noun")}?`,
      `${say("visit", "noun")} for the ${say("noise", "noun")} in my ${product}`,
    ],
  },
  {
    once: true,
    ask: ({ say, pick }) =>
      pick([
        `I can't ${say("login", "base")}, it says my ${say("login", "noun")} is wrong.`,
        `Help, I'm locked out, I can't ${say("login", "base")}.`,
      ]),
    wait: true,
    answer: ({ say, digits }) =>
      `I've reset it, a ${say("code", "noun")} was ${say("sent", "past")} to your phone ending ${digits}.`,
    questions: ({ say }) => [
      `How did they help me ${say("login", "base")} again?`,
      `Where was the ${say("code", "noun")} ${say("sent", "past")}?`,
      `${say("login", "noun")} problem, what did the agent do?`,
    ],
  },
  {
    ask: ({ say, product, pick }) =>
      pick([
        `Please ${say("cancel", "base")} my order for the ${product}.`,
        `I changed my mind about the ${product}, can you ${say("cancel", "base")} it?`,
      ]),
    answer: ({ say, order }) => `Order ${order} is ${say("cancel", "past")} and you won't be charged anything.`,
    questions: ({ say, product }) => [
      `Did the ${product} order get ${say("cancel", "past")}?`,
      `what was the number of the ${say("cancel", "past")} order?`,
      `${product} order ${say("cancel", "noun")}`,
    ],
  },
  {
    ask: ({ say, product, pick }) =>
      pick([
        `The ${product} ${say("arrive", "past")} ${say("broken", "adj")}, the box was crushed.`,
        `My ${product} is ${say("broken", "adj")}, it was like that out of the box.`,
      ]),
    wait: true,
    answer: ({ say, day }) =>
      `Sorry about that, a ${say("replacement", "noun")} will ${say("ship", "base")} on ${day} and the courier will take the old one.`,
    questions: ({ say, product }) => [
      `What are they doing about the ${say("broken", "adj")} ${product}?`,
      `when does the ${say("replacement", "noun")} ${product} ${say("ship", "base")}?`,
      `${say("broken", "adj")} ${product} ${say("replacement", "noun")}`,
    ],
  },
  {
    once: true,
    ask: ({ say, pick }) =>
      pick([
        `Do you have any ${say("discount", "noun")} for loyal customers?`,
        `Is there a ${say("discount", "noun")} I could use on my next order?`,
      ]),
    answer: ({ voucher, percent }) =>
      `Use ${voucher} at checkout for ${percent}% off your next order, valid until the end of the month.`,
    questions: ({ say }) => [
      `What ${say("discount", "noun")} did they give me?`,
      `how much off is my ${say("discount", "noun")}?`,
      `${say("discount", "noun")} for my next order`,
    ],
  },
  {
    ask: ({ say, product, relative, pick }) =>
      pick([
        `Can my ${relative} ${say("collect", "base")} the ${product} for me?`,
        `I'm away, is it OK if my ${relative} goes to ${say("collect", "base")} the ${product}?`,
      ]),
    answer: ({ say, city }) =>
      `Yes, they can ${say("collect", "base")} it at our ${city} ${say("store", "noun")} with your order number and ID.`,
    questions: ({ say, product }) => [
      `Who is ${say("collect", "ing")} the ${product}?`,
      `Which ${say("store", "noun")} will the ${product} be picked up from?`,
      `where can my ${say("relative", "noun")} ${say("collect", "base")} the ${product}`,
    ],
  },
  {
    by: "customer",
    once: true,
    prompt: () => "Is there anything the courier should know before they come?",
    answer: ({ say, hour, pet }) =>
      `I'm ${say("work", "ing")} until late, so any ${say("deliverTime", "noun")} after ${hour} is best, and the ${pet} is friendly.`,
    questions: ({ say, pet, pick }) => [
      `What ${say("deliverTime", "noun")} suits the customer?`,
      `Does the customer have a ${pick([pet, "pet"])}?`,
      `when should the courier come round?`,
    ],
  },
];

/** Turns of small talk and politeness: they share everyday words with the topics, as chats do. */
const SMALL_TALK = [
  ["customer", "How are you today?"],
  ["ai_agent", "I'm well, thanks for asking! How can I help?"],
  ["customer", "It's been raining all week here, the weather is awful."],
  ["human_agent", "Oh no, hopefully the sun comes out for the weekend."],
  ["customer", "I'm off to my sister's birthday party on Saturday, so I'm a bit busy."],
  ["ai_agent", "Sounds lovely, enjoy the party!"],
  ["customer", "Sorry, my internet is really slow today."],
  ["human_agent", "No problem at all, take your time."],
  ["customer", "Thanks so much, you've been really helpful!"],
  ["ai_agent", "Happy to help, is there anything else I can do for you?"],
  ["customer", "No, that's everything for now."],
  ["human_agent", "Thanks for your patience, have a great day!"],
  ["customer", "Haha, I always forget my order number, sorry."],
  ["ai_agent", "Don't worry, I can find your order with your phone number."],
  ["customer", "By the way, the last delivery driver was really nice."],
  ["human_agent", "That's great to hear, I'll pass it on to the team."],
  ["customer", "I was on hold for ages this morning."],
  ["ai_agent", "I'm sorry about the wait, we've been very busy this week."],
];

const GREETINGS = [
  ["customer", "Hi there"],
  ["customer", "Hello, I need some help please"],
  ["ai_agent", "Hello, this is the support assistant, how can I help you today?"],
  ["human_agent", "Hi, thanks for getting in touch, what can I do for you?"],
];

const HOLDING = [
  "Let me check that for you.",
  "One moment please, I'm looking it up.",
  "Give me a second while I pull up your account.",
  "Thanks, just checking with the team now.",
];

/** A typo as people make them: two letters swapped, one dropped, or one doubled. */
function misspell(word, random) {
  if (word.length < 4 || !/^[a-z]+$/i.test(word)) return word;
  const at = 1 + Math.floor(random() * (word.length - 2));
  const kind = random();
  if (kind < 0.4) return word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
  if (kind < 0.7) return word.slice(0, at) + word.slice(at + 1);
  return word.slice(0, at) + word[at] + word.slice(at);
}

export const typed = (text, random, rate) =>
  text
    .split(" ")
    .map((word) => (random() < rate ? misspell(word, random) : word))
    .join(" ");

/**
 * The set: `customers` customers, each with `sessions` sessions of 2 to 4 topics between
 * greetings and small talk. Returns `turns` ({customer, session, role, text}, in order) and
 * `questions` ({customer, question, answer}: `answer` the text of the turn that answers).
 */
export function conversationSet({ seed = 30, customers = 30, sessions = 6 } = {}) {
  const random = rng(seed);
  const pick = pickWith(random);
  const usual = usualWith(random);
  const say = (concept, form) => usual(CONCEPTS[concept][form]);
  const turns = [];
  const questions = [];
  for (let customer = 0; customer < customers; customer++) {
    const answers = new Set();
    // What a customer talked about: a topic without a product comes once, one with a product once per product.
    const talked = new Set();
    for (let session = 0; session < sessions; session++) {
      const push = (role, text) => turns.push({ customer, session, role, text });
      const [greetRole, greeting] = pick(GREETINGS);
      push(greetRole, greeting);
      const topics = 2 + Math.floor(random() * 3);
      for (let t = 0; t < topics; t++) {
        if (random() < 0.6) {
          const [role, text] = pick(SMALL_TALK);
          push(role, role === "customer" ? typed(text, random, 0.04) : text);
        }
        let topic;
        let products;
        do {
          topic = pick(TOPICS);
          products = pick(PRODUCTS);
        } while (talked.has(topic.once ? topic : `${TOPICS.indexOf(topic)} ${products[0]}`));
        talked.add(topic.once ? topic : `${TOPICS.indexOf(topic)} ${products[0]}`);
        const slots = {
          say,
          pick,
          product: usual(products),
          day: pick(DAYS),
          time: pick(TIMES),
          hour: `${1 + Math.floor(random() * 11)} ${pick(["am", "pm"])}`,
          city: pick(CITIES),
          amount: 10 + Math.floor(random() * 490),
          card: say("card", "noun"),
          years: 1 + Math.floor(random() * 5),
          plan: pick(PLANS),
          price: 5 + Math.floor(random() * 40),
          month: pick(MONTHS),
          digits: String(10 + Math.floor(random() * 89)),
          order: `${1000 + Math.floor(random() * 9000)}`,
          voucher: `SAVE${10 + Math.floor(random() * 89)}`,
          percent: 5 + 5 * Math.floor(random() * 5),
          relative: say("relative", "noun"),
          pet: usual(["dog", "cat", "puppy"]),
        };
        // Half the time the answer names the product, else it says "it", as people do.
        slots.it = random() < 0.5 ? `Your ${usual(products)}` : "It";
        const agent = pick(["ai_agent", "human_agent"]);
        let answer = topic.answer(slots);
        // An answer is one turn of its customer's history: never the same text twice.
        while (answers.has(answer)) answer = `${answer.slice(0, -1)}, ${pick(["thanks", "cheers", "all the best"])}.`;
        answers.add(answer);
        if (topic.by === "customer") {
          push(agent, topic.prompt(slots));
          push("customer", typed(answer, random, 0.02));
        } else {
          push("customer", typed(topic.ask(slots), random, 0.04));
          if (topic.wait && random() < 0.6) push(agent, pick(HOLDING));
          push(agent, answer);
        }
        const said = turns.at(-1).text;
        // A second product's slots: a question names its product in its own words.
        const asked = { ...slots, product: usual(products) };
        questions.push({ customer, question: typed(pick(topic.questions(asked)), random, 0.02), answer: said });
        if (random() < 0.5)
          push("customer", pick(["Great, thanks!", "Perfect.", "OK, got it.", "Thank you so much", "Brilliant"]));
      }
      if (random() < 0.7) {
        const [role, text] = pick(SMALL_TALK.slice(8, 12));
        push(role, text);
      }
    }
  }
  return { turns, questions };
}

const K1 = 1.2;
const B = 0.75;

/** Tokens as a textbook BM25 takes them: lower case, accents removed, split on anything but letters and digits. */
const plainTokens = (text) =>
  text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/**
 * The reference: textbook BM25 (k1 1.2, b 0.75, Lucene's idf; no stemming, no stop words) over
 * every turn of the set (idf over all of them), ranking one customer's turns. `top` answers the
 * texts of the best `k`.
 */
export function textbookBm25(turns) {
  const documents = turns.map((turn) => ({ ...turn, tokens: plainTokens(turn.text) }));
  const df = new Map();
  for (const { tokens } of documents) for (const term of new Set(tokens)) df.set(term, (df.get(term) ?? 0) + 1);
  const n = documents.length;
  const avgdl = documents.reduce((sum, doc) => sum + doc.tokens.length, 0) / n;
  const idf = (term) => {
    const d = df.get(term) ?? 0;
    return Math.log(1 + (n - d + 0.5) / (d + 0.5));
  };
  return {
    top(question, customer, k) {
      const terms = [...new Set(plainTokens(question))];
      return documents
        .filter((doc) => doc.customer === customer)
        .map((doc) => {
          let score = 0;
          for (const term of terms) {
            const tf = doc.tokens.filter((token) => token === term).length;
            if (tf > 0) score += (idf(term) * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.tokens.length) / avgdl));
          }
          return { text: doc.text, score };
        })
        .filter((doc) => doc.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, k)
        .map((doc) => doc.text);
    },
  };
}

/** The text a search result shows of a turn no longer than a snippet (24 tokens): all of it, without marks. */
export const shownText = (snippet) => snippet.replaceAll("**", "").replace(/^…|…$/g, "");

/**
 * The set's turns as batch items: one handle per customer (`run` keeps runs apart), one
 * conversation per session, a customer's sessions two days apart from `start` (ms), turns 40
 * seconds apart. Answers `{ items, handles }`, `handles[customer]` the customer's handle.
 */
export function conversationItems(turns, { run, start }) {
  const handles = [];
  let at = 0;
  const items = turns.map(({ customer, session, role, text }, i) => {
    const previous = turns[i - 1];
    at = previous && previous.customer === customer && previous.session === session ? at + 1 : 0;
    handles[customer] ??= { type: "system_id", scope: "search-recall", value: `${run}-${customer}` };
    return {
      type: "event",
      idempotency_key: `recall-${run}-${i}`,
      channel: "whatsapp",
      conversation_id: `recall-${run}-${customer}-${session}`,
      handles: [handles[customer]],
      speaker: { role },
      content: { type: "text", text },
      occurred_at: new Date(start + (customer * 20 + session) * 2 * 86_400_000 + at * 40_000).toISOString(),
    };
  });
  return { items, handles };
}

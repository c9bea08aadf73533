// A labelled conversation set for the memory figures of `npm run bench` (issue 31), seeded:
// customers with 2 to 30 sessions each, on whatsapp, app, email or voice, of 8 to 30 turns,
// between the customer and agents (an AI agent, a human agent from the start or after a handoff).
// A session is written with the variety of real chat: greetings and small talk, one to four
// topics, the customer's statements about themselves (life events, plans, preferences,
// circumstances, problems) between questions and filler, remarks that do not matter ("I'm on the
// bus"), side questions, answers right after the question or after the agent asks to wait, and
// questions nobody answers (ignored, promised for later, asked as the customer leaves). Words come
// from tables of synonyms and word forms (conversations.mjs) drawn on their own for every text;
// customers make typos, voice turns are transcripts (fillers, no question marks), emails carry
// greetings and sign-offs.
//
// Each session carries what a human annotator would write down:
//   - `reference`: a summary written from the session's facts (its topics and how each ended, what
//     the customer said about themselves, side questions left open) in words of its own: its
//     phrasing tables are not the turns', and its product words are drawn again, so it shares a
//     word with the turns as often as two people describing the same facts do;
//   - `statements`: indices of the turns holding a customer statement that matters;
//   - `questions`: every customer turn that asks something, `{turn, status, answer}`: `answered`
//     (by an agent's turn, `answer` its index), `deferred` (answered after the agent asked to
//     wait), `unanswered` (no later turn of the session answers it; `answer` null) or
//     `small_talk` ("how are you?", answered or not).
// Nothing here knows how the service summarizes, picks highlights or open items.
import { CITIES, CONCEPTS, DAYS, MONTHS, PLANS, PRODUCTS, pickWith, rng, TIMES, typed, usualWith } from "./conversations.mjs";

const CHANNELS = ["whatsapp", "app", "email", "voice"];
const NAMES = [
  ["Maria", "she"],
  ["Tom", "he"],
  ["Priya", "she"],
  ["Sam", "they"],
  ["Kofi", "he"],
  ["Aisha", "she"],
  ["Liam", "he"],
  ["Chen", "he"],
  ["Sofia", "she"],
  ["Alex", "they"],
  ["Fatima", "she"],
  ["Jonas", "he"],
  ["Grace", "she"],
  ["Mateo", "he"],
  ["Nadia", "she"],
  ["Owen", "he"],
];
const AGENTS = ["Jess", "Ravi", "Olu", "Marta", "Ben", "Chloe", "Dan", "Ines"];
const COUNTRIES = ["Spain", "Portugal", "Canada", "India", "Greece", "Japan", "Morocco", "Poland"];
const PRONOUNS = {
  she: { subj: "she", poss: "her", be: "is", has: "has", s: "s" },
  he: { subj: "he", poss: "his", be: "is", has: "has", s: "s" },
  they: { subj: "they", poss: "their", be: "are", has: "have", s: "" },
};
const MAX_TURNS = 30;
/** Products a noise is a fault of. */
const NOISY = new Set([
  "kettle",
  "fridge",
  "washing machine",
  "blender",
  "vacuum cleaner",
  "coffee machine",
  "lawn mower",
  "printer",
]);

/** The annotators' own words: never the turns' tables. */
const REF = {
  agent: ["the agent", "the agent", "support", "the advisor", "the representative"],
  contacted: {
    chat: ["got in touch about", "asked about", "messaged about", "contacted support about", "reached out regarding"],
    email: ["emailed about", "wrote in about", "sent an email regarding"],
    voice: ["called about", "phoned about", "rang about"],
  },
  mentioned: ["mentioned that", "said that", "noted that", "explained that", "added that"],
  also: ["also ", "further ", ""],
};

/**
 * Topics: `ask` the customer's turn (`states` when every variant of it holds a statement that
 * matters, and its kind), `answer` the agent's, `short` what the annotator calls the topic,
 * `done` and `open` how they say it ended (answered, or left open). Each a function of the
 * session's helper `t` (say, pick, the topic's slots).
 */
const TOPICS = [
  {
    key: "late",
    product: true,
    ask: (t) =>
      t.pick([
        `Where is my ${t.product}? It was supposed to ${t.say("arrive", "base")} ${t.pick(DAYS)}.`,
        `Any news on my ${t.product} ${t.say("arrive", "noun")}?`,
        `Can you check when my ${t.product} will ${t.say("arrive", "base")}?`,
        `my ${t.product} still hasn't ${t.say("arrive", "past")}, what's going on?`,
      ]),
    answer: (t) => `${t.It} will ${t.say("arrive", "base")} on ${t.day} between ${t.time}, the courier has it now.`,
    short: (t) => `${t.pick(["a late", "a delayed", "an overdue"])} ${t.refProduct} ${t.pick(["delivery", "order"])}`,
    done: (t) =>
      `${t.agentRef} ${t.pick(["confirmed it is now due", "said it would come", "said the parcel would be dropped off"])} on ${t.day} between ${t.time}`,
    open: (t) => `${t.agentRef} could not trace the parcel and promised to follow up`,
  },
  {
    key: "refund",
    product: true,
    ask: (t) =>
      t.pick([
        `I sent the ${t.product} back last week, has the ${t.say("refund", "noun")} gone through?`,
        `Did you ${t.say("refund", "base")} me for the ${t.product} yet?`,
        `Still waiting for my ${t.say("refund", "noun")} for the ${t.product}, any update?`,
      ]),
    answer: (t) =>
      `Yes, £${t.amount} was ${t.pick(["refunded", "paid back", "credited"])} to your ${t.say("card", "noun")} on ${t.day}, it can take 3 days to show.`,
    short: (t) => `${t.pick(["money owed for", "reimbursement for", "a refund on"])} a returned ${t.refProduct}`,
    done: (t) =>
      `${t.agentRef} ${t.pick(["confirmed", "verified"])} £${t.amount} ${t.pick(["went back", "was repaid"])} on ${t.day}`,
    open: (t) => `${t.agentRef} ${t.pick(["could not find", "had no record of"])} the return yet`,
  },
  {
    key: "warranty",
    product: true,
    ask: (t) =>
      t.pick([
        `How long is the ${t.say("warranty", "noun")} on my ${t.product}?`,
        `Is my ${t.product} still under ${t.say("warranty", "noun")}?`,
        `Does the ${t.say("warranty", "noun")} cover my ${t.product} if it stops working?`,
      ]),
    answer: (t) => `It is covered for ${t.years} years from the purchase date, parts and labour included.`,
    short: (t) =>
      `${t.pick(["guarantee terms", "warranty cover", "how long the guarantee lasts"])} for ${t.poss} ${t.refProduct}`,
    done: (t) =>
      `${t.agentRef} ${t.pick(["explained", "confirmed"])} it ${t.pick(["is protected", "has cover"])} for ${t.years} years`,
    open: (t) => `${t.agentRef} ${t.pick(["was unsure", "could not say"])} and would check`,
  },
  {
    key: "plan",
    ask: (t) =>
      t.pick([
        `I'd like to ${t.say("switch", "base")} to a cheaper ${t.say("plan", "noun")}, please.`,
        `Can I ${t.say("switch", "base")} my ${t.say("plan", "noun")}? It's too expensive.`,
      ]),
    answer: (t) =>
      `I've ${t.say("switch", "past")} you to the ${t.plan} ${t.say("plan", "noun")} at £${t.price} ${t.say("month", "noun")}, starting in ${t.month}.`,
    short: (t) =>
      `${t.pick(["downgrading", "moving to a lower tier of", "reducing the cost of"])} ${t.poss} ${t.pick(["subscription", "contract", "membership"])}`,
    done: (t) => `${t.agentRef} ${t.pick(["put", "moved"])} ${t.obj} on ${t.plan} for £${t.price} monthly from ${t.month}`,
    open: (t) => `${t.agentRef} could not make the change yet`,
  },
  {
    key: "noise",
    product: true,
    noisy: true,
    states: "problem",
    ask: (t) =>
      t.pick([
        `My ${t.product} is making a strange ${t.say("noise", "noun")}. Can someone ${t.say("visit", "base")} to look at it?`,
        `The ${t.product} keeps making a ${t.say("noise", "noun")} since last week. Could you send a ${t.say("technician", "noun")}?`,
      ]),
    wait: true,
    answer: (t) => `A ${t.say("technician", "noun")} will ${t.say("visit", "base")} on ${t.day} at ${t.hour}, please be home.`,
    short: (t) => `a ${t.refProduct} that ${t.pick(["sounds wrong", "has become noisy", "rattles"])}`,
    done: (t) =>
      `${t.agentRef} ${t.pick(["booked", "arranged"])} an ${t.pick(["engineer", "engineer appointment", "engineer callout"])} for ${t.day} at ${t.hour}`,
    open: (t) => `no ${t.pick(["engineer", "repair"])} could be booked yet`,
  },
  {
    key: "login",
    ask: (t) =>
      t.pick([
        `I can't ${t.say("login", "base")}, it says my ${t.say("login", "noun")} is wrong. Can you help?`,
        `I'm locked out and can't ${t.say("login", "base")}. What do I do?`,
      ]),
    wait: true,
    answer: (t) => `I've reset it, a ${t.say("code", "noun")} was ${t.say("sent", "past")} to your phone ending ${t.digits}.`,
    short: () => "being locked out of the account",
    done: (t) =>
      `${t.agentRef} ${t.pick(["reset the password", "reset access"])} and texted a code to the number ending ${t.digits}`,
    open: (t) => `${t.agentRef} could not reset access`,
  },
  {
    key: "cancel",
    product: true,
    ask: (t) =>
      t.pick([
        `Please ${t.say("cancel", "base")} my order for the ${t.product}.`,
        `Changed my mind about the ${t.product}, can you ${t.say("cancel", "base")} it?`,
      ]),
    answer: (t) => `Order ${t.order} is ${t.say("cancel", "past")} and you won't be charged anything.`,
    short: (t) => `${t.pick(["cancelling", "withdrawing"])} a ${t.refProduct} order`,
    done: (t) => `order ${t.order} was ${t.pick(["cancelled", "called off"])} ${t.pick(["at no cost", "without charge"])}`,
    open: () => "the order could not be stopped yet",
  },
  {
    key: "broken",
    product: true,
    states: "problem",
    ask: (t) =>
      t.pick([
        `The ${t.product} ${t.say("arrive", "past")} ${t.say("broken", "adj")}, the box was crushed. What can you do?`,
        `My ${t.product} is ${t.say("broken", "adj")}, it was like that out of the box. Can I get a new one?`,
      ]),
    wait: true,
    answer: (t) =>
      `Sorry about that, a ${t.say("replacement", "noun")} will ${t.say("ship", "base")} on ${t.day} and the courier will take the old one.`,
    short: (t) => `a ${t.refProduct} that ${t.pick(["came damaged", "was faulty on arrival"])}`,
    done: (t) =>
      `${t.agentRef} ${t.pick(["arranged", "organised"])} a ${t.pick(["new unit", "swap"])} to go out on ${t.day}, with the damaged one collected`,
    open: () => "no replacement was arranged yet",
  },
  {
    key: "discount",
    ask: (t) =>
      t.pick([
        `Do you have any ${t.say("discount", "noun")} for loyal customers?`,
        `Is there a ${t.say("discount", "noun")} I could use on my next order?`,
      ]),
    answer: (t) => `Use ${t.voucher} at checkout for ${t.percent}% off your next order, valid until the end of the month.`,
    short: () => "a loyalty reduction",
    done: (t) => `${t.agentRef} ${t.pick(["gave", "issued"])} code ${t.voucher} worth ${t.percent}% off`,
    open: () => "no code was given",
  },
  {
    key: "collect",
    product: true,
    ask: (t) =>
      t.pick([
        `Can my ${t.relative} ${t.say("collect", "base")} the ${t.product} for me?`,
        `Is it OK if my ${t.relative} goes to ${t.say("collect", "base")} the ${t.product}?`,
      ]),
    answer: (t) =>
      `Yes, they can ${t.say("collect", "base")} it at our ${t.city} ${t.say("store", "noun")} with your order number and ID.`,
    short: (t) => `${t.poss} ${t.relative} ${t.pick(["picking up", "fetching"])} the ${t.refProduct}`,
    done: (t) => `${t.agentRef} ${t.pick(["agreed", "said that was fine"])}, from the ${t.city} branch with ID`,
    open: () => "it was not confirmed",
  },
  {
    key: "charged",
    product: true,
    states: "problem",
    ask: (t) =>
      t.pick([
        `I've been charged twice for my ${t.product} order. Can you sort it out?`,
        `There are two payments for the ${t.product} on my statement, I only ordered one. Why?`,
      ]),
    wait: true,
    answer: (t) => `I can see the duplicate payment of £${t.amount}, I've reversed it and it'll be back in 3 to 5 days.`,
    short: (t) => `a ${t.pick(["double charge", "duplicate payment"])} for a ${t.refProduct}`,
    done: (t) => `${t.agentRef} ${t.pick(["reversed", "cancelled"])} the extra £${t.amount}`,
    open: (t) => `${t.agentRef} could not see the second payment`,
  },
  {
    key: "payday",
    states: "circumstance",
    ask: (t) =>
      t.pick([
        `I get paid on the 28th. Can my direct debit come out after that?`,
        `My wages come in on the 28th, so could the payment date move to the end of the month?`,
      ]),
    answer: () => "Done, your payments will now be taken on the 29th of each month.",
    short: () => "changing the payment date",
    done: (t) => `${t.agentRef} moved it to the 29th, after ${t.poss} payday`,
    open: () => "the date stayed as it was",
    statement: (t) => `${t.subj} ${t.be} paid on the 28th`,
  },
  {
    key: "move",
    states: "plan",
    ask: (t) =>
      t.pick([
        `We're ${t.say("move", "ing")} to ${t.city} in ${t.month}. Can I change the delivery address on my account?`,
        `I'm ${t.say("move", "ing")} to ${t.city} in ${t.month}, how do I update my address?`,
      ]),
    answer: () => "Of course, I've noted it, just send the new postcode when you have it and we'll switch it over.",
    short: () => "updating the address",
    done: (t) => `${t.agentRef} will switch it once ${t.subj} ${t.pick(["send", "provide"])}${t.s} the postcode`,
    open: () => "the address was not changed",
    statement: (t) => `${t.subj} ${t.be} relocating to ${t.city} in ${t.month}`,
  },
  {
    key: "abroad",
    states: "plan",
    ask: (t) =>
      t.pick([
        `I'll be in ${t.country} for three weeks from ${t.month}. Can I pause my ${t.say("plan", "noun")} while I'm away?`,
        `We're going to ${t.country} for three weeks in ${t.month}, is it possible to pause the ${t.say("plan", "noun")}?`,
      ]),
    answer: (t) => `Yes, I've paused it from ${t.month} for three weeks, you won't be charged for that time.`,
    short: () => "a pause while travelling",
    done: (t) => `${t.agentRef} ${t.pick(["froze", "suspended"])} it for three weeks from ${t.month} at no charge`,
    open: () => "no pause was set up",
    statement: (t) => `${t.subj} will be away in ${t.country} for three weeks from ${t.month}`,
  },
  {
    key: "quiet",
    product: true,
    noisy: true,
    states: "preference",
    ask: (t) =>
      t.pick([
        `I work from home and my ${t.product} is so loud. What's your quietest one?`,
        `I need a quieter ${t.product}, I work from home and the current one drives me mad. Any recommendations?`,
      ]),
    answer: (t) => `The ${t.model} is our quietest, it's £${t.price}0 and in stock now.`,
    short: (t) => `${t.pick(["advice on", "a recommendation for"])} a ${t.pick(["silent", "low-noise"])} ${t.refProduct}`,
    done: (t) => `${t.agentRef} ${t.pick(["suggested", "recommended"])} the ${t.model} at £${t.price}0`,
    open: () => "no recommendation was made",
    statement: (t) => `${t.subj} work${t.s} from home and want${t.s} quiet appliances`,
  },
];

/**
 * Statements a customer makes about themselves, between topics or when an agent asks: `say` the
 * turn, `ref` the annotator's clause (after "she mentioned that").
 */
const STATEMENTS = [
  {
    key: "uni",
    kind: "life_event",
    say: (t) =>
      t.pick([
        `My ${t.child} starts uni in September, so we'll probably need a second ${t.product} soon.`,
        `Just so you know, my ${t.child} is off to university in September.`,
      ]),
    ref: (t) => `${t.poss} ${t.child} begins university in September`,
  },
  {
    key: "nights",
    kind: "circumstance",
    say: (t) => t.pick(["I work nights so mornings are bad for me.", "I'm on night shifts, so please nothing before midday."]),
    ref: (t) => `${t.subj} work${t.s} night shifts, so mornings do not suit`,
  },
  {
    key: "baby",
    kind: "life_event",
    say: (t) =>
      t.pick([
        "We've just had a baby, so please ask the driver to knock, not ring the bell.",
        "Our baby was born last month, so no doorbell please, just knock.",
      ]),
    ref: (t) => `${t.subj} ${t.has} a newborn and want${t.s} couriers to knock rather than ring`,
  },
  {
    key: "wheelchair",
    kind: "circumstance",
    say: (t) =>
      t.pick([
        "I use a wheelchair, so the driver will need to bring it inside.",
        "I'm a wheelchair user, could the courier carry things in for me? I can't lift heavy boxes.",
      ]),
    ref: (t) => `${t.subj} ${t.be} a wheelchair user who needs parcels carried indoors`,
  },
  {
    key: "email",
    kind: "preference",
    say: (t) =>
      t.pick([
        "I prefer email, I never pick up calls from numbers I don't know.",
        "Please contact me by email rather than phone, I don't answer unknown numbers.",
      ]),
    ref: (t) => `${t.subj} would rather be contacted in writing than by phone`,
  },
  {
    key: "retired",
    kind: "life_event",
    say: (t) => t.pick(["I've just retired, so I'm home most days now.", "I retired last month, so any weekday works for me."]),
    ref: (t) => `${t.subj} recently stopped working and ${t.be} usually at home`,
  },
  {
    key: "lift",
    kind: "circumstance",
    say: (t) =>
      t.pick([
        "We're on the fourth floor and there's no lift, just so the driver knows.",
        "Heads up, our flat is on the fourth floor and the lift has been broken for months.",
      ]),
    ref: (t) => `${t.subj} live${t.s} four floors up with no working elevator`,
  },
  {
    key: "hearing",
    kind: "circumstance",
    say: (t) =>
      t.pick(["I'm hard of hearing, so texts are better than calls.", "I'm partially deaf, please text me instead of calling."]),
    ref: (t) => `${t.subj} ${t.has} hearing loss and prefer${t.s} text messages`,
  },
  {
    key: "student",
    kind: "circumstance",
    say: (t) => t.pick(["I'm a student so money's tight at the moment.", "I'm still at college, so I'm on a tight budget."]),
    ref: (t) => `${t.subj} ${t.be} studying and short of money`,
  },
  {
    key: "kitchen",
    kind: "plan",
    say: (t) =>
      t.pick([
        "We're redoing the kitchen over the summer.",
        "We're having the kitchen renovated in the summer, so it'll be chaos here.",
      ]),
    ref: (t) => `${t.poss} kitchen is being refitted this summer`,
  },
  {
    key: "dog",
    kind: "circumstance",
    say: (t) =>
      t.pick([
        `We've got a ${t.pet} who barks at strangers, so please call when you're outside.`,
        `Our ${t.pet} goes mad at the door, so phone me on arrival please.`,
      ]),
    ref: (t) => `${t.subj} ${t.has} a ${t.pet} and want${t.s} a call on arrival`,
  },
  {
    key: "mum",
    kind: "circumstance",
    say: (t) =>
      t.pick(["I look after my mum at weekends, so weekdays are better.", "Weekends are hard, I'm caring for my mum then."]),
    ref: (t) => `${t.subj} care${t.s} for ${t.poss} mother at weekends, so weekdays suit`,
  },
  {
    key: "wedding",
    kind: "plan",
    say: (t) =>
      t.pick([
        `We're getting married in ${t.month}, so I'd love this sorted before then.`,
        `Our wedding is in ${t.month}, so I need it before that.`,
      ]),
    ref: (t) => `${t.subj} ${t.be} getting married in ${t.month}`,
  },
  {
    key: "vegan",
    kind: "preference",
    say: (t) => t.pick(["I'm vegan, so no leather options please.", "Nothing made of leather for me please, I'm vegan."]),
    ref: (t) => `${t.subj} ${t.be} vegan and avoid${t.s} leather`,
  },
];

/** Questions asked on the side, answered or not: `q`, `a`, and `short` as an annotator names it. */
const SIDE = [
  { q: () => "Do you deliver on Sundays?", a: () => "Yes, we deliver on Sundays between 10 and 4.", short: "weekend drop-offs" },
  { q: () => "Can I pay with PayPal?", a: () => "Yes, PayPal is accepted at checkout.", short: "payment methods" },
  {
    q: (t) => `Is the ${t.city} shop open on bank holidays?`,
    a: () => "It is, from 10 until 4.",
    short: "holiday opening hours",
  },
  { q: () => "Do you price match?", a: () => "We do, within 14 days of purchase.", short: "price matching" },
  {
    q: () => "How long do returns take to process?",
    a: () => "Usually 5 working days once it reaches the warehouse.",
    short: "how quickly returns are handled",
  },
  {
    q: () => "Could you send the invoice to my work email too?",
    a: () => "Sure, I've sent a copy to the address on file.",
    short: "a copy of the invoice",
  },
  { q: () => "Is there a charge for assembly?", a: () => "Assembly is free on orders over £200.", short: "assembly fees" },
  {
    q: () => "Do you take away old appliances?",
    a: () => "Yes, we can remove the old one for £15.",
    short: "disposal of an old appliance",
  },
];

/** Customer turns of small talk: `social` questions get `small_talk`, `asks` ones are real questions. */
const SMALL_TALK = [
  { customer: "How are you today?", agent: "I'm well, thanks for asking! How can I help?", social: true },
  { customer: "How's your day going?", agent: "Busy but good, thanks!", social: true },
  { customer: "Did you have a nice weekend?", agent: "I did, thank you! Now, let's get this sorted.", social: true },
  {
    customer: "It's been raining all week here, the weather is awful.",
    agent: "Oh no, hopefully the sun comes out for the weekend.",
  },
  {
    customer: "Are you a real person?",
    agent: "I'm the virtual assistant, but I can bring in a colleague if you need one.",
    asks: true,
  },
  { customer: "Sorry, my internet is really slow today.", agent: "No problem at all, take your time." },
  { customer: "I'm on the bus so excuse the typos lol", agent: "Ha, no worries!", written: true },
  { customer: "Haha, I always forget my order number, sorry.", agent: "Don't worry, I can find it with your details." },
  {
    customer: "By the way, the last delivery driver was really nice.",
    agent: "That's great to hear, I'll pass it on to the team.",
  },
  { customer: "I was on hold for ages this morning.", agent: "I'm sorry about the wait, we've been very busy this week." },
  { customer: "Just making a cup of tea while we sort this, one sec", agent: "Sure, take your time." },
];

const HOLDING = [
  "Let me check that for you.",
  "One moment please, I'm looking it up.",
  "Give me a second while I pull up your account.",
  "Thanks, just checking with the team now.",
];
const WAITING = ["sure", "ok no rush", "thanks", "ok", "take your time"];
const BACK = ["Thanks for waiting.", "OK, found it.", "Right, I've checked.", "Sorry for the wait."];
const PROMISED = [
  "I can't see that from here, I'll check with the team and get back to you.",
  "Good question, I'll need to ask the warehouse and email you back.",
  "I'm not sure about that one, someone will be in touch.",
];
const ACKS = [
  "Thanks for letting me know, I've added a note to your account.",
  "Good to know, I'll make sure the team is aware.",
  "Noted, thank you.",
  "Thanks, I've put that on your file.",
];
const ELICIT = [
  "Is there anything the driver should know before they come?",
  "Anything else we should note on your account?",
  "Is there anything that would make deliveries easier for you?",
];
const THANKS = ["Great, thanks!", "Perfect.", "OK, got it.", "Thank you so much", "Brilliant", "cheers"];
const FILLERS = ["ok", "one sec", "hmm", "right", "yep", "hang on", "sorry, the doorbell went, back now"];
const AGENT_FILLERS = ["No problem.", "Take your time.", "Sure."];
const LEAVING = ["Actually I have to run, I'll message again later.", "Sorry, need to go, will try again tomorrow."];
const SOCIAL_EXIT = ["Thanks, have a good weekend! Doing anything nice?", "Cheers! Busy day for you?"];

const cap = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const and = (parts) => (parts.length <= 1 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`);

/**
 * The set: `customers` customers; every `longEvery`th has 30 sessions (about 600 turns, for the
 * context's size), the others 2 to 29. Answers `{customers: [{name, sessions}]}`, each session
 * `{channel, start, turns: [{role, text, at}], reference, statements, questions}` (`start` ms
 * after the set's start, `at` ms after the session's).
 */
export function labelledSet({ seed = 31, customers = 40, longEvery = 4 } = {}) {
  const random = rng(seed);
  const pick = pickWith(random);
  const usual = usualWith(random);
  const g = {
    random,
    pick,
    usual,
    chance: (p) => random() < p,
    int: (lo, hi) => lo + Math.floor(random() * (hi - lo + 1)),
    say: (concept, form) => usual(CONCEPTS[concept][form]),
  };
  const out = [];
  for (let c = 0; c < customers; c++) {
    const [name, pronoun] = NAMES[c % NAMES.length];
    const customer = {
      name,
      pronoun,
      products: shuffled(g, PRODUCTS).slice(0, 3),
      city: pick(CITIES),
      pet: usual(["dog", "cat", "puppy"]),
      child: pick(["son", "daughter"]),
      said: new Set(),
    };
    const count = c % longEvery === 0 ? 30 : g.int(2, 29);
    const sessions = [];
    let start = c * 3 * 3_600_000;
    for (let s = 0; s < count; s++) {
      const session = makeSession(g, customer, pick(CHANNELS));
      session.start = start;
      sessions.push(session);
      start += session.turns.at(-1).at + g.int(2, 6) * 86_400_000;
    }
    out.push({ name, sessions });
  }
  return { customers: out };
}

/** One session: its blocks of turns in order, trimmed to 30 turns, padded to its length, then labelled. */
function makeSession(g, customer, channel) {
  const target = g.int(8, MAX_TURNS);
  const human = channel === "email" || channel === "voice" || g.chance(0.2);
  const agentName = g.pick(AGENTS);
  const t = helper(g, customer);
  const opening = openingOf(g, t, channel, agentName);
  const closing = closingOf(g);
  const blocks = [];
  const raised = new Set();
  let planned = opening.turns.length + closing.turns.length;
  while (planned < target - 1 || !blocks.some((block) => block.topic)) {
    const roll = g.random();
    const topics = blocks.filter((block) => block.topic).length;
    const statements = blocks.filter((block) => block.statement).length;
    const block =
      (roll < 0.45 && topics < 4) || topics === 0
        ? topicBlock(g, t, customer, raised)
        : roll < 0.57 && statements < 2
          ? statementBlock(g, t, customer)
          : roll < 0.75
            ? sideBlock(g, t, "answered", raised)
            : smallTalkBlock(g, human, channel);
    blocks.push(block);
    planned += block.turns.length;
  }
  // Questions left open: ignored beside a topic's question, promised for later, asked at the end.
  if (g.chance(0.35)) {
    const how = g.random();
    const answered = blocks.find((block) => block.topic && block.status !== "unanswered");
    if (how < 0.35 && answered) ignoreBeside(g, t, answered, raised);
    else if (how < 0.7) blocks.push(sideBlock(g, t, "unanswered", raised));
    else closing.trailing = { kind: "unanswered", ...sideOf(g, t, raised) };
  } else if (g.chance(0.1)) {
    closing.trailing = { kind: "social" };
  }
  const middle = shuffled(g, blocks);
  if (!human && g.chance(0.25)) {
    const at = g.int(1, middle.length);
    middle.splice(at, 0, {
      handoff: true,
      turns: [
        { role: "agent", text: "I'll pass you to a colleague who can help with that." },
        { role: "handoff", text: `Hi ${customer.name}, ${agentName} here, I've read through the chat so far.` },
      ],
    });
  }
  // A session the customer left during a wait ends there, without a closing.
  const dropped = middle.findIndex((block) => block.dropped);
  if (dropped >= 0) middle.push(...middle.splice(dropped, 1));
  const ending = dropped >= 0 ? [] : closing.turns;
  const removable = (block) => !block.topic && !block.handoff && !block.dropped;
  const total = () => opening.turns.length + ending.length + middle.reduce((sum, block) => sum + block.turns.length, 0);
  while (total() > MAX_TURNS - (closing.trailing ? 1 : 0)) {
    const at = middle.findLastIndex(removable);
    middle.splice(at >= 0 ? at : middle.findLastIndex((block) => block.topic), 1);
  }
  const chain = [opening.turns, ...middle.map((block) => block.turns), ending];
  const length = target - (closing.trailing && dropped < 0 ? 1 : 0);
  while (chain.flat().length < length) {
    const at = g.int(1, chain.length - 1);
    const missing = length - chain.flat().length;
    const filler =
      missing === 1 || g.chance(0.5)
        ? [{ role: "customer", text: g.pick(FILLERS) }]
        : [
            { role: "customer", text: g.pick(FILLERS) },
            { role: "agent", text: g.pick(AGENT_FILLERS) },
          ];
    chain.splice(at, 0, filler);
  }
  const turns = chain.flat();
  if (closing.trailing && dropped < 0) {
    const trailing = closing.trailing;
    turns.push(
      trailing.kind === "social"
        ? { role: "customer", text: g.pick(SOCIAL_EXIT), ask: { status: "small_talk" } }
        : { role: "customer", text: `Oh wait, one more thing: ${trailing.q}`, ask: { status: "unanswered" }, side: trailing },
    );
  }
  return finish(g, t, channel, human, agentName, turns, middle);
}

/** The slots a session's texts draw on, and the annotator's words for the customer. */
function helper(g, customer) {
  const p = PRONOUNS[customer.pronoun];
  return {
    say: g.say,
    pick: g.pick,
    ...p,
    name: customer.name,
    pet: customer.pet,
    child: customer.child,
    city: customer.city,
    country: g.pick(COUNTRIES),
    month: g.pick(MONTHS),
    obj: customer.pronoun === "they" ? "them" : customer.pronoun === "she" ? "her" : "him",
  };
}

/** A topic's slots drawn for one block: the product as the customer says it and as an annotator writes it. */
function topicSlots(g, t, customer, topic, raised) {
  const fits = (family) => !raised.has(family) && (!topic.noisy || NOISY.has(family[0]));
  const owned = customer.products.filter(fits);
  const family = g.pick(owned.length > 0 ? owned : PRODUCTS.filter(fits));
  raised.add(family);
  const product = g.usual(family);
  return {
    ...t,
    family,
    product,
    refProduct: g.usual(family),
    It: g.chance(0.5) ? `Your ${g.usual(family)}` : "It",
    day: g.pick(DAYS),
    time: g.pick(TIMES),
    hour: `${1 + Math.floor(g.random() * 11)} ${g.pick(["am", "pm"])}`,
    amount: 10 + Math.floor(g.random() * 490),
    years: 1 + Math.floor(g.random() * 5),
    plan: g.pick(PLANS),
    price: 5 + Math.floor(g.random() * 40),
    digits: String(10 + Math.floor(g.random() * 89)),
    order: `${1000 + Math.floor(g.random() * 9000)}`,
    voucher: `SAVE${10 + Math.floor(g.random() * 89)}`,
    percent: 5 + 5 * Math.floor(g.random() * 5),
    relative: g.say("relative", "noun"),
    model: `${g.pick(["Quiet", "Silent", "Hush", "Calm"])}${g.pick(["Pro", "Max", "One", "Air"])} ${g.int(2, 9)}00`,
  };
}

/**
 * A topic: the customer's question, the answer (at once, or after the agent asks to wait), or
 * none (promised for later, or the customer leaves during the wait); sometimes the customer's
 * thanks. A session raises a topic once (a customer may raise it again in another session).
 */
function topicBlock(g, t, customer, raised) {
  const topic = g.pick(TOPICS.filter((candidate) => !raised.has(candidate.key)));
  raised.add(topic.key);
  const slots = topicSlots(g, t, customer, topic, raised);
  const ask = { role: "customer", text: topic.ask(slots), ask: {}, statement: topic.states ?? null };
  const roll = g.random();
  const status = roll < 0.12 ? "unanswered" : roll < (topic.wait ? 0.55 : 0.3) ? "deferred" : "answered";
  const turns = [ask];
  let dropped = false;
  if (status === "unanswered") {
    dropped = g.chance(0.3);
    if (dropped) turns.push({ role: "agent", text: g.pick(HOLDING) }, { role: "customer", text: g.pick(LEAVING) });
    else turns.push({ role: "agent", text: g.pick(PROMISED) });
  } else {
    if (status === "deferred") {
      turns.push({ role: "agent", text: g.pick(HOLDING) });
      if (g.chance(0.6)) turns.push({ role: "customer", text: g.pick(WAITING) });
    }
    const answer = { role: "agent", text: `${status === "deferred" ? `${g.pick(BACK)} ` : ""}${topic.answer(slots)}` };
    turns.push(answer);
    ask.ask.answer = answer;
    if (g.chance(0.5)) turns.push({ role: "customer", text: g.pick(THANKS) });
  }
  ask.ask.status = status;
  return { topic, slots, status, dropped, turns };
}

/** A side question beside a topic's question that the agent's answer passes over. */
function ignoreBeside(g, t, block, raised) {
  const side = sideOf(g, t, raised);
  block.turns.splice(1, 0, {
    role: "customer",
    text: `Also, ${side.q.charAt(0).toLowerCase()}${side.q.slice(1)}`,
    ask: { status: "unanswered" },
    side,
  });
  block.ignored = side;
}

/** A side question the session has not asked yet. */
function sideOf(g, t, raised) {
  const side = g.pick(SIDE.filter((candidate) => !raised.has(candidate)));
  raised.add(side);
  return { q: side.q(t), a: side.a(t), short: side.short };
}

/** A side question, answered at once or after a wait, or promised for later. */
function sideBlock(g, t, status, raised) {
  const side = sideOf(g, t, raised);
  const question = { role: "customer", text: side.q, ask: { status }, side };
  if (status === "unanswered")
    return { sideQuestion: side, status, turns: [question, { role: "agent", text: g.pick(PROMISED) }] };
  const deferred = g.chance(0.25);
  const answer = { role: "agent", text: deferred ? `${g.pick(BACK)} ${side.a}` : side.a };
  question.ask = { status: deferred ? "deferred" : "answered", answer };
  const turns = deferred ? [question, { role: "agent", text: g.pick(HOLDING) }, answer] : [question, answer];
  return { sideQuestion: side, status: question.ask.status, turns };
}

/**
 * A statement about the customer, said on its own or when the agent asks, and the agent's
 * acknowledgement. A customer says each once, until they have said them all.
 */
function statementBlock(g, t, customer) {
  if (customer.said.size === STATEMENTS.length) customer.said.clear();
  const statement = g.pick(STATEMENTS.filter((candidate) => !customer.said.has(candidate.key)));
  customer.said.add(statement.key);
  const slots = { ...t, product: g.usual(g.pick(customer.products)) };
  const text = statement.say(slots);
  const turns = [];
  if (g.chance(0.35)) turns.push({ role: "agent", text: g.pick(ELICIT) });
  else if (g.chance(0.4)) turns.push({ role: "customer", text: g.pick(["Oh, and", "By the way", "Also"]) });
  turns.push({ role: "customer", text, statement: statement.kind });
  turns.push({ role: "agent", text: g.pick(ACKS) });
  return { statement, slots, turns };
}

/** Small talk; no "are you a real person?" to a human agent, no typing on a call. */
function smallTalkBlock(g, human, channel) {
  const talk = g.pick(
    SMALL_TALK.filter((candidate) => !(human && candidate.asks) && !(channel === "voice" && candidate.written)),
  );
  const answer = { role: "agent", text: talk.agent };
  const question = talk.social || talk.asks ? { status: talk.social ? "small_talk" : "answered", answer } : undefined;
  return { smallTalk: true, turns: [{ role: "customer", text: talk.customer, ask: question }, answer] };
}

function openingOf(g, t, channel, agentName) {
  const turns = [];
  if (channel === "voice") {
    turns.push({ role: "agent", text: `Thank you for calling, you're through to ${agentName}, how can I help?` });
    turns.push({ role: "customer", text: g.pick(["Hi yes, hello", `Hi, it's ${t.name} here`, "Hello there"]) });
  } else if (channel !== "email") {
    if (g.chance(0.65))
      turns.push({ role: "customer", text: g.pick(["Hi", "Hello, I need some help please", "hey", "Hi there"]) });
    if (turns.length === 0 || g.chance(0.8))
      turns.push({
        role: "agent",
        text: g.pick([
          "Hello, this is the support assistant, how can I help you today?",
          "Hi, thanks for getting in touch, what can I do for you?",
        ]),
      });
  }
  return { turns };
}

function closingOf(g) {
  const closings = [
    [
      ["customer", "Thanks so much, you've been really helpful!"],
      ["agent", "Happy to help, have a great day!"],
    ],
    [
      ["agent", "Is there anything else I can help with today?"],
      ["customer", "No, that's everything, thanks."],
      ["agent", "Thanks for getting in touch, take care!"],
    ],
    [
      ["customer", "Great, cheers"],
      ["agent", "You're welcome, bye for now."],
    ],
    [["customer", "ok that's all, bye"]],
  ];
  return { turns: g.pick(closings).map(([role, text]) => ({ role, text })), trailing: null };
}

/**
 * Labels and voices: agent turns get their role (AI until a handoff, human after), customer
 * turns their channel's way of writing (typos, transcripts, emails), every turn a time; then the
 * reference summary from the blocks kept.
 */
function finish(g, t, channel, human, agentName, turns, middle) {
  let agentRole = human ? "human_agent" : "ai_agent";
  let at = 0;
  const gap = { whatsapp: [15, 120], app: [10, 90], voice: [5, 25], email: [1_200, 7_200] }[channel];
  const labelled = turns.map((turn, i) => {
    if (turn.role === "handoff") agentRole = "human_agent";
    const role = turn.role === "customer" ? "customer" : agentRole;
    if (i > 0) at += g.int(gap[0], gap[1]) * 1000;
    return { role, text: voiced(g, channel, role, turn.text, t, agentName, i), at, source: turn };
  });
  const index = new Map(labelled.map((turn, i) => [turn.source, i]));
  const statements = labelled.flatMap((turn, i) => (turn.source.statement ? [i] : []));
  const questions = labelled.flatMap((turn, i) => {
    const ask = turn.source.ask;
    if (!ask) return [];
    return [{ turn: i, status: ask.status, answer: ask.answer ? index.get(ask.answer) : null }];
  });
  return {
    channel,
    turns: labelled.map(({ role, text, at: when }) => ({ role, text, at: when })),
    reference: referenceOf(g, t, channel, middle, labelled),
    statements,
    questions,
  };
}

/** How a turn reads on its channel: customers make typos in chats, speak in transcripts, sign emails. */
function voiced(g, channel, role, text, t, agentName, i) {
  if (role !== "customer") {
    if (channel === "email" && g.chance(0.7)) return `Hi ${t.name}, ${text} Kind regards, ${agentName}`;
    return text;
  }
  if (channel === "voice") {
    let spoken = text;
    if (g.chance(0.4)) spoken = spoken.replaceAll("?", "");
    if (g.chance(0.3))
      spoken = `${g.pick(["um,", "yeah so", "uh,", "right,"])} ${spoken.charAt(0).toLowerCase()}${spoken.slice(1)}`;
    return spoken;
  }
  if (channel === "email") {
    const body = typed(text, g.random, 0.01);
    return `${i === 0 || g.chance(0.3) ? "Hi team, " : ""}${body}${g.chance(0.5) ? " Thanks," : ""}`;
  }
  const chat = typed(text, g.random, 0.04);
  return g.chance(0.2) ? chat.toLowerCase() : chat;
}

/**
 * What an annotator writes: who got in touch about what, how each topic ended, what the customer
 * said about themselves, a side question left open, a handoff; in their own words.
 */
function referenceOf(g, t, channel, middle, labelled) {
  const who = g.chance(0.5) ? t.name : channel === "voice" ? "The caller" : "The customer";
  const say = { ...t, agentRef: g.pick(REF.agent) };
  const topics = middle.filter((block) => block.topic);
  const sentences = [];
  const how = REF.contacted[channel === "voice" || channel === "email" ? channel : "chat"];
  sentences.push(`${who} ${g.pick(how)} ${and(topics.map((block) => block.topic.short({ ...block.slots, ...say })))}.`);
  const facts = [];
  for (const block of topics) {
    const slots = { ...block.slots, ...say, agentRef: g.pick(REF.agent) };
    sentences.push(`${cap(block.status === "unanswered" ? block.topic.open(slots) : block.topic.done(slots))}.`);
    if (block.topic.statement) facts.push(block.topic.statement(slots));
  }
  for (const block of middle) if (block.statement) facts.push(block.statement.ref({ ...block.slots, ...say }));
  if (facts.length > 0) sentences.push(`${cap(t.subj)} ${g.pick(REF.also)}${g.pick(REF.mentioned)} ${and(facts)}.`);
  const open = labelled.filter((turn) => turn.source.side && turn.source.ask?.status === "unanswered");
  for (const turn of open)
    if (g.chance(0.7))
      sentences.push(
        `A question about ${turn.source.side.short} ${g.pick(["went unanswered", "was left open", "got no reply"])}.`,
      );
  const answeredSides = middle.filter((block) => block.sideQuestion && block.status !== "unanswered");
  if (answeredSides.length > 0 && g.chance(0.5))
    sentences.push(`${cap(t.subj)} also asked about ${and(answeredSides.map((block) => block.sideQuestion.short))}.`);
  if (middle.some((block) => block.handoff) && g.chance(0.5)) sentences.push("The chat was handed to a human colleague.");
  return sentences.join(" ");
}

function shuffled(g, list) {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(g.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The set as batch items: one handle per customer (`run` keeps runs apart), one conversation per
 * session, times from `start` (ms). Voice turns are transcripts. Answers `{ batches, handles,
 * sessions }`: batches of at most `batchItems` items holding whole sessions, `handles[c]` the
 * handle of customer c, `sessions[c][s]` that session's `{channel, conversationId, times}` (the
 * ms times of its turns).
 */
export function labelledItems(set, { run, start, batchItems = 500 }) {
  const batches = [[]];
  const handles = [];
  const sessions = [];
  set.customers.forEach((customer, c) => {
    handles[c] = { type: "system_id", scope: "memory-bench", value: `${run}-${c}` };
    sessions[c] = customer.sessions.map((session, s) => {
      if (batches.at(-1).length + session.turns.length > batchItems) batches.push([]);
      const conversationId = `memory-${run}-${c}-${s}`;
      const times = session.turns.map((turn, i) => {
        const occurredAt = start + session.start + turn.at;
        batches.at(-1).push({
          type: "event",
          idempotency_key: `memory-${run}-${c}-${s}-${i}`,
          channel: session.channel,
          conversation_id: conversationId,
          handles: [handles[c]],
          speaker: { role: turn.role },
          content: session.channel === "voice" ? { type: "audio", transcript: turn.text } : { type: "text", text: turn.text },
          occurred_at: new Date(occurredAt).toISOString(),
        });
        return occurredAt;
      });
      return { channel: session.channel, conversationId, times };
    });
  });
  return { batches: batches.filter((batch) => batch.length > 0), handles, sessions };
}

/** Where code reads the time, so tests can move it (DESIGN §4). Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

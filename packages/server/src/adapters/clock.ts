/** The time source; tests swap in a fixed or stepping clock. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

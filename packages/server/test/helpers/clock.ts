import type { Clock } from '../../src/adapters/clock.ts'

/** A clock tests move (codes, cool-downs, months, rate windows) without waiting; it keeps ticking. */
export function movableClock(): { clock: Clock; setNow: (iso: string) => void; advance: (ms: number) => void } {
  let offsetMs = 0
  return {
    clock: { now: () => new Date(Date.now() + offsetMs) },
    setNow: (iso) => {
      offsetMs = Date.parse(iso) - Date.now()
    },
    advance: (ms) => {
      offsetMs += ms
    },
  }
}

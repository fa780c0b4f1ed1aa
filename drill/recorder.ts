/**
 * Every request the drill's clients make, with its wall-clock start and end (epoch ms, so it can
 * be set against the fault windows and HAProxy's log) and its status; 0 is a request that got no
 * HTTP answer at all (connection refused or reset).
 */
export interface Outcome {
  kind: string
  startedAt: number
  endedAt: number
  status: number
}

export const isError = (outcome: Outcome) => outcome.status === 0 || outcome.status >= 500

const REQUEST_TIMEOUT_MS = 90_000

export class Recorder {
  readonly outcomes: Outcome[] = []

  /** fetch, recorded under `kind`; never throws (a failed request is `undefined` and status 0). */
  async request(kind: string, url: string, init: RequestInit = {}): Promise<Response | undefined> {
    const startedAt = Date.now()
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
      // The body is read here so that the end time covers the whole answer.
      const body = await response.arrayBuffer()
      this.outcomes.push({ kind, startedAt, endedAt: Date.now(), status: response.status })
      return new Response(response.status === 204 ? null : body, { status: response.status, headers: response.headers })
    } catch {
      this.outcomes.push({ kind, startedAt, endedAt: Date.now(), status: 0 })
      return undefined
    }
  }

  /** Outcomes whose request overlapped [from, to]. */
  during(from: number, to: number): Outcome[] {
    return this.outcomes.filter((o) => o.endedAt >= from && o.startedAt <= to)
  }
}

import { setTimeout as sleep } from 'node:timers/promises'

/** Pauses between tries: about 15 s in all, longer than a database restart takes. */
const PAUSES_MS = [250, 500, 1_000, 2_000, 4_000, 8_000]

/**
 * Runs `write` until it succeeds, or rethrows its last failure after about 15 s of tries. For the
 * write that records what a background job did: when it fails (the database restarting), the
 * job's lease keeps the work from every server for minutes, or the job is done twice.
 */
export async function retryWrite<T>(write: () => Promise<T>, onRetry: (error: unknown) => void, pausesMs: readonly number[] = PAUSES_MS): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write()
    } catch (error) {
      const pause = pausesMs[attempt]
      if (pause === undefined) throw error
      onRetry(error)
      await sleep(pause)
    }
  }
}

import type { Logger } from './logger.ts'

export interface BackgroundLoop {
  /** Runs the work now (or once more right after the current run), e.g. after a commit that created some. */
  kick(): void
  /** Resolves when the current run, if any, has finished. */
  drain(): Promise<void>
  /** Stops polling and waits for the current run. */
  stop(): Promise<void>
}

/**
 * Runs `work` on every kick and every `pollMs`, never twice at once in this process.
 * The poll is the safety net: work created by another process, or left behind by a
 * crash, is picked up within one interval even if nobody kicks. A long run should
 * return early once `stopping()` is true.
 */
export function startBackgroundLoop(options: {
  name: string
  pollMs: number
  logger: Logger
  work: (stopping: () => boolean) => Promise<void>
}): BackgroundLoop {
  const { name, logger, work } = options
  let running: Promise<void> | undefined
  let again = false
  let stopped = false

  const kick = () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = work(() => stopped)
      .catch((error: unknown) => logger.error({ err: error }, `${name} run failed`))
      .finally(() => {
        running = undefined
        if (again) {
          again = false
          kick()
        }
      })
  }

  const timer = setInterval(kick, options.pollMs)
  timer.unref()
  kick()

  const drain = async () => {
    while (running) await running
  }
  return {
    kick,
    drain,
    stop: async () => {
      stopped = true
      clearInterval(timer)
      await drain()
    },
  }
}

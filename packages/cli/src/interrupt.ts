/** Waits `ms`, and answers true when `signal` aborted first. */
export function sleepUnless(signal: AbortSignal, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (signal.aborted) return resolve(true)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop)
      resolve(false)
    }, ms)
    const stop = () => {
      clearTimeout(timer)
      resolve(true)
    }
    signal.addEventListener('abort', stop, { once: true })
  })
}

/**
 * Ctrl-C as a value a command can check: the first SIGINT aborts `signal` (the command stops what it
 * does and says where it stopped); a second one exits at once.
 */
export function onInterrupt(): { signal: AbortSignal; sleep: (ms: number) => Promise<boolean> } {
  const controller = new AbortController()
  process.once('SIGINT', () => {
    controller.abort()
    process.once('SIGINT', () => process.exit(130))
  })
  const { signal } = controller
  return { signal, sleep: (ms) => sleepUnless(signal, ms) }
}

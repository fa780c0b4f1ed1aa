import { AppError } from '../errors.ts'

/** A place in a BoundedWork queue: used once to run a task, or given back. */
export interface WorkPlace {
  /** Waits for a free slot, runs the task in it, and gives the place back. */
  run: <T>(task: () => Promise<T>) => Promise<T>
  /** Gives the place back unused (a no-op once it runs, ran or was given back). */
  release: () => void
}

export interface BoundedWorkOptions {
  /** Tasks that run at once. */
  concurrency: number
  /** Places beyond those: requests that wait for a slot. Past them, `enter` refuses. */
  queue: number
  /** The refusal: a 503 with Retry-After. */
  busy: () => AppError
}

/**
 * Work that must not pile up: at most `concurrency` tasks run at once and at most `queue` more
 * wait; any request beyond that is refused at once (503) instead of waiting without end. A
 * request takes its place before doing anything else (`enter`), so a refused one costs nothing
 * (no query, no hash) and a taken place stays guaranteed while the request prepares its task.
 * (p-limit and p-queue have no refusal; this is their few lines with one.)
 */
export class BoundedWork {
  #places = 0
  #running = 0
  readonly #waiting: (() => void)[] = []

  constructor(private readonly options: BoundedWorkOptions) {}

  /** Takes a place, or throws the 503 when every place is taken. */
  enter(): WorkPlace {
    this.refuseWhenFull()
    this.#places++
    let state: 'held' | 'running' | 'done' = 'held'
    const giveBack = () => {
      state = 'done'
      this.#places--
    }
    return {
      run: async <T>(task: () => Promise<T>): Promise<T> => {
        if (state !== 'held') throw new Error('a work place runs one task')
        state = 'running'
        try {
          await this.#slot()
          try {
            return await task()
          } finally {
            this.#freeSlot()
          }
        } finally {
          giveBack()
        }
      },
      release: () => {
        if (state === 'held') giveBack()
      },
    }
  }

  /** Throws the 503 when every place is taken (a request can be refused before its body is read). */
  refuseWhenFull(): void {
    if (this.#places >= this.options.concurrency + this.options.queue) throw this.options.busy()
  }

  /** enter() and run(task) in one. */
  run<T>(task: () => Promise<T>): Promise<T> {
    return this.enter().run(task)
  }

  async #slot(): Promise<void> {
    if (this.#running < this.options.concurrency) {
      this.#running++
      return
    }
    // A finishing task hands its slot over (#freeSlot): the count of running tasks stays.
    await new Promise<void>((resolve) => this.#waiting.push(resolve))
  }

  #freeSlot(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#running--
  }
}

/** The refusal every sign-in and sign-up queue gives when it is full. */
export function busyWithSignIns(retryAfterSeconds: number): () => AppError {
  return () =>
    new AppError(
      'service_unavailable',
      `The server is busy with other sign-ins. Try again in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`,
      {},
      {
        'retry-after': String(retryAfterSeconds),
      },
    )
}

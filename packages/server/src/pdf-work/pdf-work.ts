import { fileURLToPath } from 'node:url'
import { MessageChannel, type MessagePort } from 'node:worker_threads'
import { Piscina } from 'piscina'
import { AppError } from '../errors.ts'
import type { Logger } from '../lib/logger.ts'
import type { BadgeFacts } from '../seal/badge.ts'
import type { SealCertificateFacts } from '../seal/seal-certificate-facts.ts'
import type { SealSigning } from '../seal/sign-pdf.ts'
import type { SignedPdfInput } from '../signing/signed-pdf.ts'
import type { ImageType } from './image-check.ts'
import type { PdfInspection } from './inspect.ts'
import { isRejection, type PdfLimits, type PdfWorkOptions } from './limits.ts'
import { openSealBridge, signerIdentity, type SealProof } from './seal-bridge.ts'
import type { PdfTask, PdfTaskEnvelope, PdfTaskResults } from './worker.ts'

/*
 * Every PDF parse, render and seal, and every badge drawing, runs in a bounded pool of
 * worker threads (piscina), never on the event loop that serves other requests:
 *  - at most `workers` tasks run at once and at most `queue` wait; beyond that a request
 *    gets 503 with Retry-After instead of waiting behind everyone else;
 *  - a task may run `taskTimeoutMs` (its worker is then terminated) and each worker's heap
 *    is capped at `workerMemoryMb`; what a task decompresses is capped by the limits;
 *  - an input at fault (not a PDF, over a limit) is a 400 or 413 naming the problem.
 */

/** Thrown when the pool cannot finish a task for reasons of its own (time, memory, a crash); the work may be retried. */
export class PdfWorkFailed extends Error {
  override readonly name = 'PdfWorkFailed'
  constructor(
    message: string,
    /** Whether the input itself exceeded what the server allows (time or memory), so retrying cannot help. */
    readonly permanent: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}

const WORKER_FILE = fileURLToPath(new URL('./worker.ts', import.meta.url))
/** Workers load TypeScript through tsx, whether or not the process itself was started with it (tests are not). */
const WORKER_EXEC_ARGV = ['--import', import.meta.resolve('tsx')]
/** What a 503 asks a client to wait before trying again. */
const RETRY_AFTER_SECONDS = 5

/**
 * Byte inputs are handed over to the worker, not copied: cloning or copying 25 MB costs this
 * thread 80–250 ms here (fresh memory), a transfer nothing. So the Uint8Array passed to a
 * PdfWork method is consumed (empty afterwards) — unless it is a view into a larger buffer,
 * which is copied first so that the other views survive. inspect() hands the bytes back.
 */
function handOver(bytes: Uint8Array): [Uint8Array, ArrayBuffer] {
  const whole = bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
  const owned = whole ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes)
  return [owned, owned.buffer]
}

/** One pool per process and configuration: test servers in one process share theirs (idle workers do not keep a process alive). */
const pools = new Map<string, Piscina>()

function poolFor(options: PdfWorkOptions): Piscina {
  const key = JSON.stringify(options)
  let pool = pools.get(key)
  if (!pool) {
    pool = new Piscina({
      filename: WORKER_FILE,
      execArgv: WORKER_EXEC_ARGV,
      // Every worker stays warm: booting one (tsx, @libpdf/core, resvg) takes a second or two.
      minThreads: options.workers,
      maxThreads: options.workers,
      // Our own count of tasks in flight enforces the queue bound (with a clear 503); piscina's is a backstop.
      maxQueue: options.queue + options.workers,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.workerMemoryMb, maxYoungGenerationSizeMb: 64 },
    })
    pools.set(key, pool)
  }
  return pool
}

export class PdfWork {
  private readonly pool: Piscina
  private inFlight = 0

  constructor(
    private readonly options: PdfWorkOptions,
    readonly limits: PdfLimits,
    private readonly logger: Logger,
  ) {
    this.pool = poolFor(options)
  }

  /** Tasks running and waiting, by the count the 503 is decided on (the metrics read it at each scrape). */
  get load(): { busy: number; queued: number; workers: number } {
    const busy = Math.min(this.inFlight, this.options.workers)
    return { busy, queued: this.inFlight - busy, workers: this.options.workers }
  }

  /**
   * Opens an upload: its page sizes and whether a seal can extend it, or a 400/413 saying what
   * is wrong. The bytes travel to the worker and back: use the returned `pdf`, not the argument.
   */
  async inspect(pdf: Uint8Array): Promise<PdfInspection & { pdf: Uint8Array }> {
    try {
      const [owned, transfer] = handOver(pdf)
      return await this.run({ kind: 'inspect', pdf: owned, limits: this.limits }, [transfer])
    } catch (error) {
      // Too slow or too big to open is the upload's own limit, like its size.
      if (error instanceof PdfWorkFailed && error.permanent) throw new AppError('payload_too_large', error.message)
      throw error
    }
  }

  renderSignedPdf(input: SignedPdfInput): Promise<Uint8Array> {
    const [originalPdf, transfer] = handOver(input.originalPdf)
    return this.run({ kind: 'render-signed-pdf', input: { ...input, originalPdf }, limits: this.limits }, [transfer])
  }

  appendSealCertificate(pdf: Uint8Array, facts: SealCertificateFacts): Promise<Uint8Array> {
    const [owned, transfer] = handOver(pdf)
    return this.run({ kind: 'append-seal-certificate', pdf: owned, facts, limits: this.limits }, [transfer])
  }

  renderSealCertificate(facts: SealCertificateFacts): Promise<Uint8Array> {
    return this.run({ kind: 'render-seal-certificate', facts })
  }

  renderBadge(facts: BadgeFacts): Promise<Uint8Array> {
    return this.run({ kind: 'render-badge', facts })
  }

  /** Why a submitted signature image could not be drawn, or null (decoded fully; the small image is copied, not handed over). */
  pngProblem(png: Uint8Array, maxDecodedBytes: number): Promise<string | null> {
    return this.run({ kind: 'png-problem', png, maxDecodedBytes })
  }

  /**
   * Decodes a PNG or JPEG in full (an identity document), or a 400/413 says what is wrong with it.
   * The bytes travel to the worker and back, and come back as the image alone: up to its end
   * marker, without what a file may carry after it.
   */
  async checkImage(image: Uint8Array, type: ImageType, maxPixels: number): Promise<Uint8Array> {
    try {
      const [owned, transfer] = handOver(image)
      const checked = await this.run({ kind: 'check-image', image: owned, type, maxPixels }, [transfer])
      return checked.image.subarray(0, checked.length)
    } catch (error) {
      if (error instanceof PdfWorkFailed && error.permanent)
        throw new AppError('payload_too_large', 'The image needs more time or memory to decode than this server allows.')
      throw error
    }
  }

  /** Signs in a worker (consuming `pdf`); the signer's key and the time-stamp authority answer from this thread. */
  async seal(pdf: Uint8Array, signing: SealSigning): Promise<{ bytes: Uint8Array } & SealProof> {
    const bridge = openSealBridge(signing.signer, signing.timestampAuthority)
    try {
      const [owned, transfer] = handOver(pdf)
      const task = {
        kind: 'seal',
        pdf: owned,
        reason: signing.reason,
        signingTime: signing.signingTime,
        signer: signerIdentity(signing.signer),
        port: bridge.port,
        limits: this.limits,
      } as const
      const bytes = await this.run(task, [bridge.port, transfer])
      return { bytes, ...(await bridge.proof) }
    } catch (error) {
      // A failing time-stamp authority (TimestampUnavailableError) must reach the caller as itself.
      throw bridge.failure() ?? error
    } finally {
      bridge.close()
    }
  }

  private async run<K extends PdfTask['kind']>(
    task: Extract<PdfTask, { kind: K }>,
    transferList: (ArrayBuffer | MessagePort)[] = [],
  ): Promise<PdfTaskResults[K]> {
    if (this.inFlight >= this.options.workers + this.options.queue) {
      throw new AppError(
        'service_unavailable',
        `The server is busy with other documents. Try again in ${RETRY_AFTER_SECONDS} seconds.`,
        {},
        { 'retry-after': String(RETRY_AFTER_SECONDS) },
      )
    }
    this.inFlight++
    // The time limit counts from when a worker starts the task (it says so on `started`), not
    // from when it was queued: waiting behind others, or for a worker to boot, is not the PDF's fault.
    const deadline = new AbortController()
    const { port1: startedHere, port2: started } = new MessageChannel()
    let timer: NodeJS.Timeout | undefined
    startedHere.once('message', () => {
      timer = setTimeout(() => deadline.abort(), this.options.taskTimeoutMs)
    })
    let result: unknown
    try {
      const envelope: PdfTaskEnvelope = { task, started }
      result = await this.pool.run(envelope, { signal: deadline.signal, transferList: [...transferList, started] as never })
    } catch (error) {
      throw this.failure(task.kind, error)
    } finally {
      clearTimeout(timer)
      startedHere.close()
      this.inFlight--
    }
    if (isRejection(result)) throw new AppError(result.status === 413 ? 'payload_too_large' : 'invalid_request', result.message)
    return result as PdfTaskResults[K]
  }

  private failure(kind: PdfTask['kind'], error: unknown): Error {
    const code = (error as { code?: string; name?: string }).code ?? (error as { name?: string }).name
    if (code === 'AbortError') {
      return new PdfWorkFailed(`The PDF took longer than this server allows (${this.options.taskTimeoutMs / 1000} s, PDF_TASK_TIMEOUT_MS).`, true, {
        cause: error,
      })
    }
    if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new PdfWorkFailed(`The PDF needs more memory than this server allows (${this.options.workerMemoryMb} MB, PDF_WORKER_MEMORY_MB).`, true, {
        cause: error,
      })
    }
    this.logger.debug({ err: error, task: kind }, 'PDF worker task failed')
    return error instanceof Error ? error : new Error(String(error))
  }
}

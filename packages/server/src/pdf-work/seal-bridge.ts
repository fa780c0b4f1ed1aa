import { MessageChannel, type MessagePort } from 'node:worker_threads'
import type { DigestAlgorithm, Signer, TimestampAuthority } from '@libpdf/core'

/*
 * A seal is made in a worker (loading and saving the PDF is the heavy part), but the seal's
 * private key and the time-stamp authorities stay on the main thread: the key never leaves
 * the process's main heap, and tests swap the authority as an ordinary adapter. The worker
 * asks for the two small things it needs — a signature over the signed attributes, and a
 * time-stamp token for a digest — over a MessagePort, and reports what it stamped.
 */

/** The public half of the seal signer: what the worker writes into the signature. */
export type SignerIdentity = Pick<Signer, 'certificate' | 'keyType' | 'signatureAlgorithm'> & { certificateChain: Uint8Array[] }

type Request = { id: number; op: 'sign' | 'timestamp'; data: Uint8Array; algorithm: DigestAlgorithm }
type Response = { id: number; ok: true; value: Uint8Array } | { id: number; ok: false; message: string }
/** What the worker proved, sent once the seal is made. */
export interface SealProof {
  sealedAt: Date
  tsaName: string | null
  /** SHA-256 of the sealed file (hex), computed in the worker. */
  sha256: string
}
type Report = { op: 'sealed'; proof: SealProof }

export function signerIdentity(signer: Signer): SignerIdentity {
  return {
    certificate: signer.certificate,
    certificateChain: signer.certificateChain ?? [],
    keyType: signer.keyType,
    signatureAlgorithm: signer.signatureAlgorithm,
  }
}

export interface MainSide {
  /** Goes to the worker in the task (and its transfer list). */
  port: MessagePort
  /** The error the signer or the authority threw, if any: the task's failure is really this one. */
  failure(): unknown
  /** What the worker reports once the seal is made (it may arrive after the task's result). */
  proof: Promise<SealProof>
  close(): void
}

/** The main thread's end: answers the worker's signing and time-stamping requests. */
export function openSealBridge(signer: Signer, authority: TimestampAuthority): MainSide {
  const { port1, port2 } = new MessageChannel()
  let failure: unknown
  let reported: (proof: SealProof) => void = () => undefined
  let closed: (error: Error) => void = () => undefined
  const proof = new Promise<SealProof>((resolve, reject) => {
    reported = resolve
    closed = reject
  })
  // Awaited only after a successful task; a failed one must not leave an unhandled rejection.
  proof.catch(() => undefined)
  port1.on('close', () => closed(new Error('the PDF worker closed the seal channel without reporting the seal')))
  port1.on('message', (message: Request | Report) => {
    if (message.op === 'sealed') {
      reported(message.proof)
      return
    }
    const answer = message.op === 'sign' ? signer.sign(message.data, message.algorithm) : authority.timestamp(message.data, message.algorithm)
    answer.then(
      (value) => port1.postMessage({ id: message.id, ok: true, value } satisfies Response),
      (error: unknown) => {
        failure ??= error
        port1.postMessage({ id: message.id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies Response)
      },
    )
  })
  return {
    port: port2,
    failure: () => failure,
    proof,
    close: () => port1.close(),
  }
}

/** The worker's end: a Signer and a TimestampAuthority that ask the main thread. */
export function workerSealBridge(
  port: MessagePort,
  identity: SignerIdentity,
): { signer: Signer; authority: TimestampAuthority; report(proof: SealProof): void } {
  let nextId = 0
  const pending = new Map<number, { resolve: (value: Uint8Array) => void; reject: (error: Error) => void }>()
  port.on('message', (response: Response) => {
    const waiting = pending.get(response.id)
    pending.delete(response.id)
    if (response.ok) waiting?.resolve(response.value)
    else waiting?.reject(new Error(response.message))
  })
  const ask = (op: Request['op'], data: Uint8Array, algorithm: DigestAlgorithm) =>
    new Promise<Uint8Array>((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      port.postMessage({ id, op, data, algorithm } satisfies Request)
    })
  return {
    signer: { ...identity, sign: (data, algorithm) => ask('sign', data, algorithm) },
    authority: { timestamp: (digest, algorithm) => ask('timestamp', digest, algorithm) },
    report: (proof) => port.postMessage({ op: 'sealed', proof } satisfies Report),
  }
}

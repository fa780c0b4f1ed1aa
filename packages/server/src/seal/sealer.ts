import type { Clock } from '../adapters/clock.ts'
import type { SealCredentials } from './seal-credentials.ts'
import type { NamedTimestampAuthority } from './tsa-chain.ts'
import type { PdfWork } from '../pdf-work/pdf-work.ts'

/** The outcome of sealing: the file, and the time the time-stamp authority proved. */
export interface SealedPdf {
  bytes: Uint8Array
  /** SHA-256 of `bytes` (hex). */
  sha256: string
  /** genTime of the RFC 3161 token inside the seal signature */
  sealedAt: Date
  /** who proved that time (the TSA certificate's name) */
  tsaName: string
}

/** Applies the instance's seal to PDFs. The one place that signs; swapped by nothing (its TSA is the adapter). */
export interface Sealer {
  seal(pdf: Uint8Array, options: { reason: string }): Promise<SealedPdf>
  /** The seal certificate's name, printed on certificates. */
  readonly subjectName: string
  /** PEM of every root a verifier needs to trust our seals and our built-in TSA (served at /.well-known/signet-root.pem). */
  readonly publishedRootsPem: string
}

/** The main thread's sealer: the key and the time-stamp authorities stay here, the PDF work goes to the pool. */
export function createSealer(options: {
  credentials: SealCredentials
  timestampAuthority: NamedTimestampAuthority
  publishedRootsPem: string
  clock: Clock
  pdfWork: PdfWork
}): Sealer {
  const { credentials, timestampAuthority, clock, pdfWork } = options
  return {
    subjectName: credentials.subjectName,
    publishedRootsPem: options.publishedRootsPem,
    async seal(pdf, { reason }) {
      const sealed = await pdfWork.seal(pdf, { signer: credentials.signer, timestampAuthority, reason, signingTime: clock.now() })
      return { bytes: sealed.bytes, sha256: sealed.sha256, sealedAt: sealed.sealedAt, tsaName: sealed.tsaName ?? timestampAuthority.name }
    },
  }
}

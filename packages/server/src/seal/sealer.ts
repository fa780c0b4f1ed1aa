import { PDF, type Signer, type TimestampAuthority } from '@libpdf/core'
import type { Clock } from '../adapters/clock.ts'
import type { SealCredentials } from './seal-credentials.ts'
import { lastSignatureTimestamp } from './timestamp-token.ts'
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

/** Everything signing needs besides the PDF; on the worker side signer and authority are proxies (pdf-work/seal-bridge.ts). */
export interface SealSigning {
  signer: Signer
  timestampAuthority: TimestampAuthority
  reason: string
  signingTime: Date
}

/*
 * PAdES B-T: an ETSI.CAdES.detached signature by the seal key plus an RFC 3161
 * signature time-stamp. If every TSA fails, sign() throws (TimestampUnavailableError)
 * and nothing is stored: a seal is never silently downgraded to an untimed one.
 * Runs in a PDF worker (pdf-work/worker.ts): loading and saving the file is the heavy part.
 */
export async function signPdf(pdf: Uint8Array, signing: SealSigning): Promise<{ bytes: Uint8Array; sealedAt: Date; tsaName: string | null }> {
  const document = await PDF.load(pdf)
  const { bytes } = await document.sign({
    signer: signing.signer,
    level: 'B-T',
    subFilter: 'ETSI.CAdES.detached',
    timestampAuthority: signing.timestampAuthority,
    reason: signing.reason,
    signingTime: signing.signingTime,
    // Room for the CMS, the seal chain and a third-party TSA's token with its chain.
    estimatedSize: 24_576,
  })
  const proof = lastSignatureTimestamp(bytes)
  if (!proof) throw new Error('the sealed PDF carries no signature time-stamp')
  return { bytes, sealedAt: proof.genTime, tsaName: proof.tsaName }
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

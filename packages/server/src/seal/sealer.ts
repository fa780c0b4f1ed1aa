import { PDF } from '@libpdf/core'
import type { Clock } from '../adapters/clock.ts'
import type { SealCredentials } from './seal-credentials.ts'
import { lastSignatureTimestamp } from './timestamp-token.ts'
import type { NamedTimestampAuthority } from './tsa-chain.ts'

/** The outcome of sealing: the file, and the time the time-stamp authority proved. */
export interface SealedPdf {
  bytes: Uint8Array
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

/*
 * PAdES B-T: an ETSI.CAdES.detached signature by the seal key plus an RFC 3161
 * signature time-stamp. If every TSA fails, sign() throws (TimestampUnavailableError)
 * and nothing is stored: a seal is never silently downgraded to an untimed one.
 */
export function createSealer(options: {
  credentials: SealCredentials
  timestampAuthority: NamedTimestampAuthority
  publishedRootsPem: string
  clock: Clock
}): Sealer {
  const { credentials, timestampAuthority, clock } = options
  return {
    subjectName: credentials.subjectName,
    publishedRootsPem: options.publishedRootsPem,
    async seal(pdf, { reason }) {
      const document = await PDF.load(pdf)
      const { bytes } = await document.sign({
        signer: credentials.signer,
        level: 'B-T',
        subFilter: 'ETSI.CAdES.detached',
        timestampAuthority,
        reason,
        signingTime: clock.now(),
        // Room for the CMS, the seal chain and a third-party TSA's token with its chain.
        estimatedSize: 24_576,
      })
      const proof = lastSignatureTimestamp(bytes)
      if (!proof) throw new Error('the sealed PDF carries no signature time-stamp')
      return { bytes, sealedAt: proof.genTime, tsaName: proof.tsaName ?? timestampAuthority.name }
    },
  }
}

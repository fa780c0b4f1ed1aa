import { PDF, type Signer, type TimestampAuthority } from '@libpdf/core'
import { lastSignatureTimestamp } from './timestamp-token.ts'

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

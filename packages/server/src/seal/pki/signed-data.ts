import * as pkijs from 'pkijs'
import { parseDer } from './der.ts'
import { OID } from './oids.ts'

/** The SignedData inside a CMS ContentInfo (a PDF signature's /Contents, or a time-stamp token). */
export function signedDataOf(cms: Uint8Array): pkijs.SignedData {
  const contentInfo = new pkijs.ContentInfo({ schema: parseDer(cms, 'CMS') })
  if (contentInfo.contentType !== OID.signedData) throw new Error(`expected CMS SignedData, found content type ${contentInfo.contentType}`)
  return new pkijs.SignedData({ schema: contentInfo.content })
}

/**
 * The embedded certificate of the first signer, found by issuer and serial number. A
 * signer named by subject key identifier instead (rare for TSAs) yields null.
 */
export function signerCertificate(signedData: pkijs.SignedData): pkijs.Certificate | null {
  const sid: unknown = signedData.signerInfos[0]?.sid
  if (!(sid instanceof pkijs.IssuerAndSerialNumber)) return null
  const certificates = (signedData.certificates ?? []).filter((item) => item instanceof pkijs.Certificate)
  return certificates.find((certificate) => certificate.issuer.isEqual(sid.issuer) && certificate.serialNumber.isEqual(sid.serialNumber)) ?? null
}

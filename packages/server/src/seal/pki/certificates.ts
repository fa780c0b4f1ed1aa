import * as pkijs from 'pkijs'
import { encodeDer, parseDer } from './der.ts'
import { OID } from './oids.ts'
import { fromPem } from './pem.ts'

export const parseCertificate = (der: Uint8Array): pkijs.Certificate => new pkijs.Certificate({ schema: parseDer(der, 'certificate') })

export const certificateFromPem = (pem: string): pkijs.Certificate => parseCertificate(fromPem(pem, 'CERTIFICATE'))

export const certificateDer = (certificate: pkijs.Certificate): Uint8Array => encodeDer(certificate.toSchema())

/** The name's commonName (the most specific one if several), or null. */
export function commonName(name: pkijs.RelativeDistinguishedNames): string | null {
  const names = name.typesAndValues.filter((attribute) => attribute.type === OID.commonName)
  const value: unknown = names.at(-1)?.value.valueBlock.value
  return typeof value === 'string' ? value : null
}

/** Subject and issuer are the same name: the certificate is a root (or claims to be). */
export const isSelfIssued = (certificate: pkijs.Certificate): boolean => certificate.subject.isEqual(certificate.issuer)

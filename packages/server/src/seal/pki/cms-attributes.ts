import { createHash } from 'node:crypto'
import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'
import { certificateDer } from './certificates.ts'
import { OID } from './oids.ts'

export const attribute = (type: string, value: asn1js.AsnType): pkijs.Attribute => new pkijs.Attribute({ type, values: [value] })

/**
 * ESS signing-certificate-v2 (RFC 5035) naming the signer's certificate by its SHA-256
 * hash (the default algorithm, so omitted) and issuer + serial, which binds the signature
 * to that certificate: nobody can swap in another certificate with the same key.
 */
export function signingCertificateV2(certificate: pkijs.Certificate): pkijs.Attribute {
  const certHash = createHash('sha256').update(certificateDer(certificate)).digest()
  const issuerSerial = new pkijs.IssuerSerial({
    issuer: new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: certificate.issuer })] }),
    serialNumber: certificate.serialNumber,
  })
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: certHash }), issuerSerial.toSchema()] })
  return attribute(OID.signingCertificateV2, new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] }))
}

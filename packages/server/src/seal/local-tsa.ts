import { createHash } from 'node:crypto'
import type { DigestAlgorithm } from '@libpdf/core'
import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'
import type { Clock } from '../adapters/clock.ts'
import { certificateFromPem } from './pki/certificates.ts'
import { attribute, signingCertificateV2 } from './pki/cms-attributes.ts'
import { encodeDer, randomSerialNumber } from './pki/der.ts'
import { assertKeyMatchesCertificate, importSigningKey } from './pki/keys.ts'
import { digestLength, digestOid, LOCAL_TSA_POLICY, OID } from './pki/oids.ts'
import type { NamedTimestampAuthority } from './tsa-chain.ts'

/*
 * The instance's built-in RFC 3161 time-stamp authority, so a fresh instance seals
 * offline. Its tokens are what a third-party TSA would return (verifiable with
 * `openssl ts -verify`), signed by its own key, which the instance root certifies.
 * It proves time only as far as one trusts this instance's clock, hence third-party
 * TSAs come first in TSA_URL when configured.
 */
export async function createLocalTsa(options: {
  certificatePem: string
  privateKeyPem: string
  /** Issuer certificates up to the root, embedded so verifiers can build the path. */
  chainPems: string[]
  clock: Clock
}): Promise<NamedTimestampAuthority> {
  const certificate = certificateFromPem(options.certificatePem)
  assertKeyMatchesCertificate(options.privateKeyPem, certificate, 'time-stamp authority')
  const privateKey = await importSigningKey(options.privateKeyPem)
  const certificates = [certificate, ...options.chainPems.map(certificateFromPem)]
  const essSigningCertificate = signingCertificateV2(certificate)
  const tsaName = new pkijs.GeneralName({ type: 4, value: certificate.subject })

  return {
    name: 'local',
    async timestamp(digest: Uint8Array, algorithm: DigestAlgorithm): Promise<Uint8Array> {
      if (digest.length !== digestLength(algorithm)) throw new Error(`a ${algorithm} digest has ${digestLength(algorithm)} bytes, not ${digest.length}`)
      const genTime = options.clock.now()
      if (genTime < certificate.notBefore.value || genTime > certificate.notAfter.value) {
        throw new Error(`the local TSA certificate is not valid at ${genTime.toISOString()}`)
      }
      const tstInfo = new pkijs.TSTInfo({
        version: 1,
        policy: LOCAL_TSA_POLICY,
        // Echoes the request: the same algorithm (parameters absent, as libpdf sends them) and digest.
        messageImprint: new pkijs.MessageImprint({
          hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: digestOid(algorithm) }),
          hashedMessage: new asn1js.OctetString({ valueHex: digest }),
        }),
        serialNumber: randomSerialNumber(),
        genTime,
        accuracy: new pkijs.Accuracy({ seconds: 1 }),
        tsa: tsaName,
      })
      const content = encodeDer(tstInfo.toSchema())

      // In the order DER requires for a SET OF (by encoding, which here means by length).
      // signingTime is left out: genTime is the signed statement of time.
      const signedAttributes = [
        attribute(OID.contentType, new asn1js.ObjectIdentifier({ value: OID.tstInfo })),
        attribute(OID.messageDigest, new asn1js.OctetString({ valueHex: createHash('sha256').update(content).digest() })),
        essSigningCertificate,
      ]
      const signedData = new pkijs.SignedData({
        // CMS version 3: the content type is not id-data (RFC 5652 §5.1).
        version: 3,
        encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.tstInfo, eContent: new asn1js.OctetString({ valueHex: content }) }),
        certificates,
        signerInfos: [
          new pkijs.SignerInfo({
            version: 1,
            sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
            signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: signedAttributes }),
          }),
        ],
      })
      await signedData.sign(privateKey, 0, 'SHA-256')
      return encodeDer(new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) }).toSchema())
    },
  }
}

import * as pkijs from 'pkijs'
import { Asn1Error, children, content, expect, oid, raw, readDer, smallInteger, TAG, integerHex, type Der } from '../asn1/der.ts'
import { algorithmIdentifier, type AlgorithmIdentifier } from '../cms/algorithms.ts'
import { digest } from '../util/digest.ts'
import { copyBytes, toBase64 } from '../util/bytes.ts'
import { describeName } from './names.ts'

/**
 * An X.509 certificate with what verification needs. pkijs parses names and validity;
 * the exact encodings that signatures and pins are computed over (TBSCertificate,
 * SubjectPublicKeyInfo, issuer and subject names) are sliced from the input bytes.
 */
export interface Certificate {
  der: Uint8Array
  tbs: Uint8Array
  version: number
  serialNumber: string
  issuerDer: Uint8Array
  subjectDer: Uint8Array
  issuer: string
  subject: string
  commonName: string | null
  organization: string | null
  notBefore: Date
  notAfter: Date
  spki: Uint8Array
  keyAlgorithm: AlgorithmIdentifier
  signatureAlgorithm: AlgorithmIdentifier
  signature: Uint8Array
  /** 'sha256/<base64>' of the SubjectPublicKeyInfo DER. */
  spkiPin: string
  basicConstraints: { ca: boolean; pathLength: number | null } | null
  /** Key usage bit names, or null when the extension is absent. */
  keyUsage: Set<KeyUsage> | null
  extendedKeyUsage: string[] | null
  subjectKeyIdentifier: Uint8Array | null
  /** OIDs of critical extensions we do not process. */
  unhandledCritical: string[]
}

export type KeyUsage =
  'digitalSignature' | 'nonRepudiation' | 'keyEncipherment' | 'dataEncipherment' | 'keyAgreement' | 'keyCertSign' | 'cRLSign' | 'encipherOnly' | 'decipherOnly'
const KEY_USAGE_BITS: KeyUsage[] = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
]

/** Extensions we either enforce or that carry no constraint we would have to enforce. */
const HANDLED_EXTENSIONS = new Set([
  '2.5.29.14', // subjectKeyIdentifier
  '2.5.29.15', // keyUsage
  '2.5.29.17', // subjectAltName
  '2.5.29.18', // issuerAltName
  '2.5.29.19', // basicConstraints
  '2.5.29.31', // cRLDistributionPoints
  '2.5.29.32', // certificatePolicies (no policy is required of signers)
  '2.5.29.35', // authorityKeyIdentifier
  '2.5.29.37', // extKeyUsage
  '1.3.6.1.5.5.7.1.1', // authorityInfoAccess
  '1.3.6.1.5.5.7.1.3', // qcStatements
  '1.3.6.1.5.5.7.48.1.5', // id-pkix-ocsp-nocheck
])

export async function spkiPin(spki: Uint8Array): Promise<string> {
  return `sha256/${toBase64(await digest('SHA-256', spki))}`
}

function parseExtensions(tbsFields: Der[]): Map<string, { critical: boolean; value: Uint8Array }> {
  const out = new Map<string, { critical: boolean; value: Uint8Array }>()
  const wrapper = tbsFields.find((field) => field.tag === 0xa3)
  if (!wrapper) return out
  const [list] = children(wrapper)
  if (!list) return out
  for (const extension of children(expect(list, TAG.SEQUENCE, 'Extensions'))) {
    const parts = children(extension)
    const id = oid(expect(parts[0], TAG.OID, 'extension id'))
    const critical = parts[1]?.tag === TAG.BOOLEAN ? content(parts[1])[0] !== 0 : false
    const value = parts[parts.length - 1]
    if (!value || value.tag !== TAG.OCTET_STRING) throw new Asn1Error('bad extension value')
    if (out.has(id)) throw new Asn1Error(`duplicate extension ${id}`)
    out.set(id, { critical, value: content(value) })
  }
  return out
}

export async function parseCertificate(der: Uint8Array): Promise<Certificate> {
  const top = readDer(der)
  const [tbsElement, sigAlgElement, sigElement] = children(expect(top, TAG.SEQUENCE, 'Certificate'))
  const tbsFields = children(expect(tbsElement, TAG.SEQUENCE, 'TBSCertificate'))
  const offset = tbsFields[0]?.tag === 0xa0 ? 1 : 0
  const issuerElement = expect(tbsFields[offset + 2], TAG.SEQUENCE, 'issuer')
  const subjectElement = expect(tbsFields[offset + 4], TAG.SEQUENCE, 'subject')
  const spkiElement = expect(tbsFields[offset + 5], TAG.SEQUENCE, 'SubjectPublicKeyInfo')
  const signatureBits = content(expect(sigElement, TAG.BIT_STRING, 'signature'))
  const [keyAlgorithm] = children(spkiElement)

  const parsed = pkijs.Certificate.fromBER(copyBytes(der.subarray(top.start, top.end)))
  const subject = describeName(parsed.subject)
  const extensions = parseExtensions(tbsFields)

  let basicConstraints: Certificate['basicConstraints'] = null
  const bc = extensions.get('2.5.29.19')
  if (bc) {
    const fields = children(readDer(bc.value))
    const caField = fields.find((field) => field.tag === TAG.BOOLEAN)
    const pathField = fields.find((field) => field.tag === TAG.INTEGER)
    basicConstraints = { ca: caField ? content(caField)[0] !== 0 : false, pathLength: pathField ? smallInteger(pathField) : null }
  }
  let keyUsage: Set<KeyUsage> | null = null
  const ku = extensions.get('2.5.29.15')
  if (ku) {
    const bits = content(readDer(ku.value)).subarray(1)
    keyUsage = new Set(KEY_USAGE_BITS.filter((_, bit) => (((bits[bit >> 3] ?? 0) >> (7 - (bit & 7))) & 1) === 1))
  }
  const eku = extensions.get('2.5.29.37')
  const ski = extensions.get('2.5.29.14')

  const spki = raw(spkiElement)
  return {
    der: der.subarray(top.start, top.end),
    tbs: raw(tbsElement as Der),
    version: parsed.version + 1,
    serialNumber: integerHex(expect(tbsFields[offset], TAG.INTEGER, 'serialNumber')),
    issuerDer: raw(issuerElement),
    subjectDer: raw(subjectElement),
    issuer: describeName(parsed.issuer).text,
    subject: subject.text,
    commonName: subject.commonName,
    organization: subject.organization,
    notBefore: parsed.notBefore.value,
    notAfter: parsed.notAfter.value,
    spki,
    keyAlgorithm: algorithmIdentifier(expect(keyAlgorithm, TAG.SEQUENCE, 'key algorithm')),
    signatureAlgorithm: algorithmIdentifier(expect(sigAlgElement, TAG.SEQUENCE, 'signatureAlgorithm')),
    // A BIT STRING starts with its count of unused bits (always 0 for signatures).
    signature: signatureBits.subarray(1),
    spkiPin: await spkiPin(spki),
    basicConstraints,
    keyUsage,
    extendedKeyUsage: eku ? children(readDer(eku.value)).map(oid) : null,
    subjectKeyIdentifier: ski ? content(readDer(ski.value)) : null,
    unhandledCritical: [...extensions].filter(([id, extension]) => extension.critical && !HANDLED_EXTENSIONS.has(id)).map(([id]) => id),
  }
}

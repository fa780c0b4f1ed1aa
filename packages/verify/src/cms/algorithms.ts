import { children, expect, oid, smallInteger, TAG, type Der } from '../asn1/der.ts'
import type { HashName } from '../util/digest.ts'

/** Object identifiers and the algorithms we accept. SHA-1 is recognised but refused for signatures. */

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStamp: '1.2.840.113549.1.9.16.2.14',
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsaPss: '1.2.840.113549.1.1.10',
  mgf1: '1.2.840.113549.1.1.8',
  ecPublicKey: '1.2.840.10045.2.1',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  anyExtendedKeyUsage: '2.5.29.37.0',
} as const

const HASHES: Record<string, HashName> = {
  '1.3.14.3.2.26': 'SHA-1',
  '2.16.840.1.101.3.4.2.1': 'SHA-256',
  '2.16.840.1.101.3.4.2.2': 'SHA-384',
  '2.16.840.1.101.3.4.2.3': 'SHA-512',
}

export function hashFromOid(id: string): HashName | null {
  return HASHES[id] ?? null
}

const RSA_PKCS1: Record<string, HashName> = {
  '1.2.840.113549.1.1.5': 'SHA-1',
  '1.2.840.113549.1.1.11': 'SHA-256',
  '1.2.840.113549.1.1.12': 'SHA-384',
  '1.2.840.113549.1.1.13': 'SHA-512',
}

const ECDSA: Record<string, HashName> = {
  '1.2.840.10045.4.1': 'SHA-1',
  '1.2.840.10045.4.3.2': 'SHA-256',
  '1.2.840.10045.4.3.3': 'SHA-384',
  '1.2.840.10045.4.3.4': 'SHA-512',
}

export const CURVES: Record<string, { name: 'P-256' | 'P-384' | 'P-521'; size: number }> = {
  '1.2.840.10045.3.1.7': { name: 'P-256', size: 32 },
  '1.3.132.0.34': { name: 'P-384', size: 48 },
  '1.3.132.0.35': { name: 'P-521', size: 66 },
}

export interface AlgorithmIdentifier {
  oid: string
  /** The parameters element, when present and not NULL. */
  params: Der | null
}

export function algorithmIdentifier(element: Der): AlgorithmIdentifier {
  const [id, params] = children(expect(element, TAG.SEQUENCE, 'AlgorithmIdentifier'))
  return { oid: oid(expect(id, TAG.OID, 'algorithm OID')), params: params && params.tag !== TAG.NULL ? params : null }
}

export type SignatureScheme =
  { kind: 'RSASSA-PKCS1-v1_5'; hash: HashName } | { kind: 'RSA-PSS'; hash: HashName; saltLength: number } | { kind: 'ECDSA'; hash: HashName }

export class UnsupportedAlgorithmError extends Error {}

export function hashName(id: AlgorithmIdentifier): HashName {
  const hash = hashFromOid(id.oid)
  if (!hash) throw new UnsupportedAlgorithmError(`unsupported digest algorithm ${id.oid}`)
  return hash
}

function pssParams(params: Der | null): { hash: HashName; saltLength: number } {
  let hash: HashName = 'SHA-1'
  let mgfHash: HashName = 'SHA-1'
  let saltLength = 20
  if (params) {
    for (const field of children(params)) {
      const [inner] = children(field)
      if (!inner) continue
      if (field.tag === 0xa0) hash = hashName(algorithmIdentifier(inner))
      if (field.tag === 0xa1) {
        const mgf = algorithmIdentifier(inner)
        if (mgf.oid !== OID.mgf1 || !mgf.params) throw new UnsupportedAlgorithmError('RSA-PSS with a mask generation function other than MGF1')
        mgfHash = hashName(algorithmIdentifier(mgf.params))
      }
      if (field.tag === 0xa2) saltLength = smallInteger(inner)
    }
  }
  if (mgfHash !== hash) throw new UnsupportedAlgorithmError('RSA-PSS whose MGF1 hash differs from its message hash')
  return { hash, saltLength }
}

/**
 * The signature scheme for a signatureAlgorithm. CMS allows the bare key algorithm
 * (rsaEncryption, id-ecPublicKey) with the hash taken from the SignerInfo's digestAlgorithm.
 */
export function signatureScheme(algorithm: AlgorithmIdentifier, digestHash: HashName | null): SignatureScheme {
  const pkcs1 = RSA_PKCS1[algorithm.oid]
  const ecdsa = ECDSA[algorithm.oid]
  let scheme: SignatureScheme
  if (pkcs1) scheme = { kind: 'RSASSA-PKCS1-v1_5', hash: pkcs1 }
  else if (ecdsa) scheme = { kind: 'ECDSA', hash: ecdsa }
  else if (algorithm.oid === OID.rsaPss) scheme = { kind: 'RSA-PSS', ...pssParams(algorithm.params) }
  else if (algorithm.oid === OID.rsaEncryption && digestHash) scheme = { kind: 'RSASSA-PKCS1-v1_5', hash: digestHash }
  else if (algorithm.oid === OID.ecPublicKey && digestHash) scheme = { kind: 'ECDSA', hash: digestHash }
  else throw new UnsupportedAlgorithmError(`unsupported signature algorithm ${algorithm.oid}`)
  if (scheme.hash === 'SHA-1') throw new UnsupportedAlgorithmError('SHA-1 signatures are not accepted')
  return scheme
}

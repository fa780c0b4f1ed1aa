import type { DigestAlgorithm } from '@libpdf/core'

export const OID = {
  commonName: '2.5.4.3',
  organizationName: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extendedKeyUsage: '2.5.29.37',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  /** id-aa-timeStampToken: the unsigned attribute holding a signature time-stamp (RFC 3161 appendix A). */
  timeStampToken: '1.2.840.113549.1.9.16.2.14',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
} as const

/*
 * The policy our built-in TSA states in every token. Signet has no registered
 * enterprise arc, so this is a UUID-derived OID (ITU-T X.667, arc 2.25), unique
 * without registration: 2.25 + UUID 5de2ce19-ac09-4154-9221-56ddb333e3e2 as an integer.
 * It is a placeholder that names "Signet's built-in TSA, no published practice
 * statement"; a registered arc can replace it without affecting existing tokens.
 */
export const LOCAL_TSA_POLICY = '2.25.124795842908351072860343286864578601954'

const DIGEST_OIDS: Record<DigestAlgorithm, string> = {
  'SHA-256': '2.16.840.1.101.3.4.2.1',
  'SHA-384': '2.16.840.1.101.3.4.2.2',
  'SHA-512': '2.16.840.1.101.3.4.2.3',
}

const DIGEST_LENGTHS: Record<DigestAlgorithm, number> = { 'SHA-256': 32, 'SHA-384': 48, 'SHA-512': 64 }

export const digestOid = (algorithm: DigestAlgorithm): string => DIGEST_OIDS[algorithm]

export const digestLength = (algorithm: DigestAlgorithm): number => DIGEST_LENGTHS[algorithm]

export function digestAlgorithmOf(oid: string): DigestAlgorithm {
  const found = (Object.keys(DIGEST_OIDS) as DigestAlgorithm[]).find((algorithm) => DIGEST_OIDS[algorithm] === oid)
  if (!found) throw new Error(`unsupported digest algorithm ${oid}`)
  return found
}

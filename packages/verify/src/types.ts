/** Public result types (re-exported by index.ts). */

export type Verdict = 'verified' | 'verified-untrusted-root' | 'signed-untimed' | 'unverified' | 'mismatch' | 'unsupported' | 'no-signature'

/** Every verdict, best first. */
export const VERDICTS: readonly Verdict[] = ['verified', 'verified-untrusted-root', 'signed-untimed', 'unverified', 'mismatch', 'unsupported', 'no-signature']

export interface VerifyOptions {
  /** Trust anchors: PEM text (may hold several certificates), DER certificate bytes, or pins 'sha256/<base64 of SHA-256 of SubjectPublicKeyInfo DER>'. Matched by public-key hash only. */
  trustAnchors?: (string | Uint8Array)[]
  /** Validation time when a signature has no proven time (default: now). */
  now?: Date
}

export interface VerifyResult {
  verdict: Verdict
  /** SHA-256 (lowercase hex) of the whole file. */
  fileSha256: string
  signatures: SignatureReport[]
  /** Human-readable reasons for the verdict, most important first. */
  problems: string[]
}

export interface SignerSummary {
  subject: string
  commonName: string | null
  organization: string | null
  /** Certificate serial number, lowercase hex. */
  serialNumber: string
  /** The signer's public-key pin, 'sha256/<base64>' (usable as a trust anchor). */
  spkiSha256: string
  issuer: string
  notBefore: string
  notAfter: string
}

export interface ChainSummary {
  /** Subjects from the signer's certificate up to the last certificate found (the anchor or root). */
  subjects: string[]
  /** Every link verifies cryptographically, and each certificate is within its validity period and allowed its role. */
  valid: boolean
  /** A certificate on the chain has a key pinned as a trust anchor. */
  trusted: boolean
  problems: string[]
  /** The time the chain was validated at (ISO-8601): the proven time, else `options.now`. */
  validatedAt: string
}

export interface TimestampSummary {
  /** genTime of the token (ISO-8601). */
  time: string
  tsaName: string | null
  /** The token verifies (signature, content digest, TSA chain) and covers what it should. */
  valid: boolean
  /** The token's messageImprint is the hash of this signature's value (or, for a document timestamp, of its signed bytes). */
  coversSignature: boolean
  /** The TSA's chain reaches a trust anchor. */
  trusted: boolean
  /** Where the proven time comes from. */
  source: 'signature-time-stamp' | 'document-timestamp'
  /** For source 'document-timestamp': the field name of that timestamp. */
  documentTimestampField?: string | null
  tsaChain: string[]
}

export interface SignatureReport {
  fieldName: string | null
  kind: 'signature' | 'document-timestamp'
  subFilter: string
  byteRange: number[]
  /** true when the signed ranges reach the end of the file */
  coversWholeFile: boolean
  /** Index (0-based) of the revision the signature's ranges end with; later revisions are incremental updates. */
  revision: number | null
  digestAlgorithm: string | null
  digestMatches: boolean | null
  signatureValid: boolean | null
  signer: SignerSummary | null
  chain: ChainSummary
  /** ISO-8601, from the signingTime attribute or /M. */
  claimedSigningTime: string | null
  timestamp: TimestampSummary | null
  /**
   * What incremental updates after this signature changed that they may not (empty when none
   * or all allowed). Each names the object, what the signed revision used it for, what changed
   * and why it matters.
   */
  disallowedChanges: string[]
  verdict: Verdict
  problems: string[]
  /** Informational findings that do not affect the verdict (allowed updates, metadata changes). */
  notes: string[]
}

import type { Verdict } from './types.ts'

/**
 * Verdict rules. Per signature, in this order:
 *  1. the ByteRange is malformed, or changes after it are not allowed → mismatch
 *  2. its format or algorithms cannot be checked                      → unsupported
 *  3. the digest of the signed bytes does not match                   → mismatch
 *  4. the CMS signature, certificate chain/validity or a timestamp fails → unverified
 *  5. no valid RFC 3161 time covers it                                → signed-untimed
 *  6. its chain, or the chain of the TSA proving its time, is not anchored → verified-untrusted-root
 *  7. otherwise                                                       → verified
 * For the document: no signatures → no-signature; all unsupported → unsupported;
 * otherwise the worst verdict among the signatures, an unsupported one counting as
 * unverified (a signature we cannot check cannot vouch for the document).
 */

export interface SignatureFacts {
  structureProblems: number
  disallowedChanges: number
  unsupported: boolean
  digestMatches: boolean | null
  signatureValid: boolean | null
  chainValid: boolean
  /** Own timestamp present but invalid (does not cover the signature, fails to verify). */
  timestampInvalid: boolean
  provenTime: boolean
  chainTrusted: boolean
  timeTrusted: boolean
}

export function signatureVerdict(facts: SignatureFacts): Verdict {
  if (facts.structureProblems > 0 || facts.disallowedChanges > 0) return 'mismatch'
  if (facts.unsupported) return 'unsupported'
  if (facts.digestMatches === false) return 'mismatch'
  if (facts.digestMatches !== true || facts.signatureValid !== true || !facts.chainValid || facts.timestampInvalid) return 'unverified'
  if (!facts.provenTime) return 'signed-untimed'
  if (!facts.chainTrusted || !facts.timeTrusted) return 'verified-untrusted-root'
  return 'verified'
}

/** Worst first. */
const SEVERITY: Verdict[] = ['mismatch', 'unverified', 'signed-untimed', 'verified-untrusted-root', 'verified']

export function documentVerdict(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.length === 0) return 'no-signature'
  if (verdicts.every((verdict) => verdict === 'unsupported')) return 'unsupported'
  const counted: Verdict[] = verdicts.map((verdict) => (verdict === 'unsupported' || verdict === 'no-signature' ? 'unverified' : verdict))
  return SEVERITY.find((verdict) => counted.includes(verdict)) ?? 'unverified'
}

/** Exit codes of the CLI, one per verdict. */
export const EXIT_CODES: Record<Verdict, number> = {
  verified: 0,
  'verified-untrusted-root': 3,
  'signed-untimed': 4,
  unverified: 5,
  mismatch: 6,
  unsupported: 7,
  'no-signature': 8,
}

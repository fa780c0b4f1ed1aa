/** What the owner submitted for an identity check, as a verifier sees it. */
export interface IdentitySubmission {
  checkId: string
  orgId: string
  legalName: string
  document: { filename: string; contentType: string; bytes: Uint8Array }
}

/** A verifier's answer: decided now, or later (by the operator, or the provider calling back). */
export type IdentityVerdict = { status: 'pending'; reference?: string } | { status: 'approved' | 'rejected'; reason?: string; reference?: string }

/**
 * Who decides an org's identity check. The default leaves it to the instance operator; a
 * provider (Stripe Identity, Onfido…) plugs in here and answers at once or with a reference
 * it decides later under (its callback then records the decision as the operator's does).
 */
export interface IdentityVerifier {
  /** Recorded on the check, e.g. 'manual' or 'stripe_identity'. */
  readonly name: string
  submit(check: IdentitySubmission): Promise<IdentityVerdict>
}

/** The operator decides, in the Operator area or with the CLI: every submission waits for them. */
export const manualIdentityVerifier: IdentityVerifier = {
  name: 'manual',
  submit: () => Promise.resolve({ status: 'pending' }),
}

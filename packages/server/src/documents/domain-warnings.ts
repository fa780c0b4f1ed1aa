import { disposableEmailBlocklistSet } from 'disposable-email-domains-js'
import { all as popularMailDomains } from 'email-misspelled'
import { distance } from 'fastest-levenshtein'
import { domainOf } from '../lib/email-address.ts'

// Built once: the library's per-call helper rebuilds its ~9,000-entry set on every call.
const disposableDomains = disposableEmailBlocklistSet()
const popularDomains = new Set(popularMailDomains)
const MAX_EDITS = 2

/**
 * A likely typo of a popular mail domain (email-misspelled's list, compared with the much
 * faster fastest-levenshtein). Two edits are allowed only for longer names: short ones
 * (acme.com, ibm.com) are two edits from some popular domain by chance.
 */
function likelyTypoOf(domain: string): string | undefined {
  if (popularDomains.has(domain)) return undefined
  const allowed = (domain.split('.')[0]?.length ?? 0) >= 5 ? MAX_EDITS : 1
  let best: { domain: string; edits: number } | undefined
  for (const candidate of popularMailDomains) {
    if (Math.abs(candidate.length - domain.length) > allowed) continue
    const edits = distance(domain, candidate)
    if (edits <= allowed && (!best || edits < best.edits)) best = { domain: candidate, edits }
  }
  return best?.domain
}

/** The warning for one domain, or '' for none. Domains repeat, so results are remembered (bounded). */
const warningByDomain = new Map<string, string>()
const MAX_REMEMBERED_DOMAINS = 10_000

function warningFor(domain: string, email: string): string {
  let warning = warningByDomain.get(domain)
  if (warning === undefined) {
    const typo = likelyTypoOf(domain)
    warning = typo
      ? `"${domain}" looks like a typo of "${typo}" — check the address ${email}.`
      : disposableDomains.has(domain)
        ? `"${domain}" is a disposable e-mail domain — the signer may not receive or keep the invitation.`
        : ''
    // A typo warning names the address, so only domain-level answers are remembered.
    if (!typo) {
      if (warningByDomain.size >= MAX_REMEMBERED_DOMAINS) warningByDomain.clear()
      warningByDomain.set(domain, warning)
    }
  }
  return warning
}

/**
 * domain_warning(s): advisory texts about a signer's e-mail domain that never block a
 * send — a likely typo of a popular mail domain, or a disposable (throwaway) domain.
 * One warning per distinct domain, in the order the signers were given.
 */
export function domainWarnings(emails: string[]): string[] {
  const warnings: string[] = []
  const seen = new Set<string>()
  for (const email of emails) {
    const domain = domainOf(email)
    if (seen.has(domain)) continue
    seen.add(domain)
    const warning = warningFor(domain, email)
    if (warning) warnings.push(warning)
  }
  return warnings
}

import { isDisposableEmailDomain } from 'disposable-email-domains-js'
import emailMisspelled, { all as popularMailDomains } from 'email-misspelled'
import { domainOf } from '../lib/email-address.ts'

const suggestDomains = emailMisspelled({ domains: popularMailDomains, maxMisspelled: 2 })

/**
 * A likely typo of a popular mail domain. Two edits are allowed only for longer names:
 * short ones (acme.com, ibm.com) are two edits from some popular domain by chance.
 */
function likelyTypoOf(email: string): string | undefined {
  const domain = domainOf(email)
  const nameLength = domain.split('.')[0]?.length ?? 0
  const match = suggestDomains(email).find((s) => s.misspelledCount === 1 || nameLength >= 5)
  return match && match.suggest !== domain ? match.suggest : undefined
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
    const typo = likelyTypoOf(email)
    if (typo) {
      warnings.push(`"${domain}" looks like a typo of "${typo}" — check the address ${email}.`)
    } else if (isDisposableEmailDomain(domain)) {
      warnings.push(`"${domain}" is a disposable e-mail domain — the signer may not receive or keep the invitation.`)
    }
  }
  return warnings
}

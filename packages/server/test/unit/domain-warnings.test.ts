import { describe, expect, it } from 'vitest'
import { domainWarnings } from '../../src/documents/domain-warnings.ts'

describe('domain warnings', () => {
  it('names a likely typo of a popular mail domain and the address it is in', () => {
    expect(domainWarnings(['ada@gmial.com'])).toEqual(['"gmial.com" looks like a typo of "gmail.com" — check the address ada@gmial.com.'])
  })

  it('warns about a disposable domain', () => {
    expect(domainWarnings(['ada@mailinator.com'])).toEqual([
      '"mailinator.com" is a disposable e-mail domain — the signer may not receive or keep the invitation.',
    ])
  })

  it('says nothing about ordinary and popular domains, nor about short names a couple of letters from a popular one', () => {
    expect(domainWarnings(['ada@gmail.com', 'bob@example.org', 'cy@acme.com', 'di@ibm.com'])).toEqual([])
  })

  it('warns once per domain, in the order the signers were given', () => {
    expect(domainWarnings(['a@mailinator.com', 'b@gmial.com', 'c@mailinator.com'])).toEqual([
      '"mailinator.com" is a disposable e-mail domain — the signer may not receive or keep the invitation.',
      '"gmial.com" looks like a typo of "gmail.com" — check the address b@gmial.com.',
    ])
  })
})

import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { documentVerdict, EXIT_CODES, signatureVerdict, type SignatureFacts } from '../src/verdict.ts'
import { VERDICTS } from '../src/index.ts'

/* The precedence rules in isolation, and the package's runtime neutrality. */

const good: SignatureFacts = {
  structureProblems: 0,
  disallowedChanges: 0,
  unsupported: false,
  digestMatches: true,
  signatureValid: true,
  chainValid: true,
  timestampInvalid: false,
  provenTime: true,
  chainTrusted: true,
  timeTrusted: true,
}

describe('signature verdict precedence', () => {
  it.each([
    ['all good', {}, 'verified'],
    ['TSA not anchored', { timeTrusted: false }, 'verified-untrusted-root'],
    ['signer not anchored', { chainTrusted: false }, 'verified-untrusted-root'],
    ['no proven time (even if untrusted)', { provenTime: false, chainTrusted: false }, 'signed-untimed'],
    ['invalid own timestamp beats untimed', { timestampInvalid: true, provenTime: false }, 'unverified'],
    ['broken chain', { chainValid: false, provenTime: false }, 'unverified'],
    ['bad CMS signature', { signatureValid: false }, 'unverified'],
    ['digest unknown', { digestMatches: null }, 'unverified'],
    ['digest mismatch beats everything below it', { digestMatches: false, signatureValid: false, chainValid: false }, 'mismatch'],
    ['unsupported', { unsupported: true, digestMatches: null, signatureValid: null }, 'unsupported'],
    ['structure beats unsupported', { unsupported: true, structureProblems: 1 }, 'mismatch'],
    ['disallowed change on an otherwise perfect signature', { disallowedChanges: 1 }, 'mismatch'],
  ] as const)('%s', (_label, change, expected) => {
    expect(signatureVerdict({ ...good, ...change })).toBe(expected)
  })
})

describe('document verdict', () => {
  it('is the worst signature verdict; unsupported alone is unsupported, next to others it counts as unverified', () => {
    expect(documentVerdict([])).toBe('no-signature')
    expect(documentVerdict(['unsupported', 'unsupported'])).toBe('unsupported')
    expect(documentVerdict(['verified', 'unsupported'])).toBe('unverified')
    expect(documentVerdict(['verified', 'verified-untrusted-root'])).toBe('verified-untrusted-root')
    expect(documentVerdict(['signed-untimed', 'verified'])).toBe('signed-untimed')
    expect(documentVerdict(['unverified', 'mismatch', 'verified'])).toBe('mismatch')
    expect(documentVerdict(['verified', 'verified'])).toBe('verified')
  })

  it('has a distinct exit code per verdict', () => {
    expect(Object.keys(EXIT_CODES).sort()).toEqual([...VERDICTS].sort())
    expect(new Set(Object.values(EXIT_CODES)).size).toBe(VERDICTS.length)
    expect(EXIT_CODES.verified).toBe(0)
  })
})

describe('runtime neutrality', () => {
  it('nothing under src/ but cli.ts imports Node modules or uses Buffer', async () => {
    const root = fileURLToPath(new URL('../src', import.meta.url))
    const files = (await readdir(root, { recursive: true })).filter((file) => file.endsWith('.ts') && file !== 'cli.ts')
    expect(files.length).toBeGreaterThan(20)
    for (const file of files) {
      const text = await readFile(join(root, file), 'utf8')
      expect(text, file).not.toMatch(/from ['"](node:|fs|path|crypto|zlib|os|child_process)/)
      expect(text, file).not.toMatch(/\bBuffer\.(from|alloc|concat|isBuffer)/)
      expect(text, file).not.toMatch(/\bimport\(['"]node:/)
    }
  })
})

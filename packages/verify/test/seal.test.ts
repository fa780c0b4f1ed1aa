import { createHash } from 'node:crypto'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { HttpTimestampAuthority, PDF } from '@libpdf/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { haveTools } from '../../../test-support/tools.ts'
import { startOpensslTsa, type OpensslTsa } from '../../../test-support/openssl-tsa.ts'
import { publicKeyPin, verifyPdf, VERDICTS } from '../src/index.ts'
import { OID } from '../src/cms/algorithms.ts'
import { findAttribute, parseSignedData } from '../src/cms/signed-data.ts'
import { raw } from '../src/asn1/der.ts'
import { createPki, signerFor, type Pki } from './helpers/pki.ts'
import { contentsBytes, locateSignature, makeBasePdf } from './helpers/pdf.ts'
import { offlineRevocation, pdfsig, tempDir } from './helpers/env.ts'

/*
 * PDFs sealed the way the service seals them (libpdf, ECDSA P-256, PAdES B-T,
 * ETSI.CAdES.detached, a third-party RFC 3161 TSA), and the legitimate updates that may
 * follow a seal (document timestamp, DSS).
 */

const run = promisify(execFile)
const oracles = haveTools('pdfsig', 'openssl')

let tsa: OpensslTsa
let temp: Awaited<ReturnType<typeof tempDir>>
let ec: Pki
let rsa: Pki
let base: Uint8Array
let authority: HttpTimestampAuthority
const fixtures: Record<string, Uint8Array> = {}
let anchors: string[]

async function seal(input: Uint8Array, options: Parameters<PDF['sign']>[0]): Promise<Uint8Array> {
  const pdf = await PDF.load(input)
  return (await pdf.sign(options)).bytes
}

beforeAll(async () => {
  temp = await tempDir()
  tsa = await startOpensslTsa()
  authority = new HttpTimestampAuthority(tsa.url)
  ;[ec, rsa] = await Promise.all([createPki(temp.dir, 'ec'), createPki(temp.dir, 'rsa', 'Signet RSA')])
  anchors = [ec.root.certPem, rsa.root.certPem, tsa.rootPem]
  base = await makeBasePdf()
  const ecSigner = await signerFor(ec.leaf, [ec.root], 'ec')
  fixtures.sealed = await seal(base, { signer: ecSigner, level: 'B-T', timestampAuthority: authority, subFilter: 'ETSI.CAdES.detached' })
  fixtures.rsa384 = await seal(base, {
    signer: await signerFor(rsa.leaf, [rsa.root], 'rsa', 'SHA-384'),
    level: 'B-T',
    timestampAuthority: authority,
    digestAlgorithm: 'SHA-384',
  })
  fixtures.rsaPss512 = await seal(base, {
    signer: await signerFor(rsa.leaf, [rsa.root], 'rsa', 'SHA-512', 'RSA-PSS'),
    level: 'B-T',
    timestampAuthority: authority,
    digestAlgorithm: 'SHA-512',
  })
  fixtures.ec512 = await seal(base, { signer: ecSigner, level: 'B-T', timestampAuthority: authority, digestAlgorithm: 'SHA-512' })
  fixtures.untimed = await seal(base, { signer: ecSigner, level: 'B-B' })
  fixtures.docTimestamp = (await (await PDF.load(fixtures.sealed)).addTimestamp({ timestampAuthority: authority })).bytes
  fixtures.untimedThenDocTimestamp = (await (await PDF.load(fixtures.untimed)).addTimestamp({ timestampAuthority: authority })).bytes
  fixtures.blt = await seal(base, { signer: ecSigner, level: 'B-LT', timestampAuthority: authority, revocationProvider: offlineRevocation })
  fixtures.blta = await seal(base, { signer: ecSigner, level: 'B-LTA', timestampAuthority: authority, revocationProvider: offlineRevocation })
  fixtures.validationDataLater = (await (await PDF.load(fixtures.sealed)).addValidationData({ revocationProvider: offlineRevocation })).bytes
  fixtures.archival = (await (await PDF.load(fixtures.sealed)).addArchivalData({ timestampAuthority: authority, revocationProvider: offlineRevocation })).bytes
})

afterAll(async () => {
  await tsa?.close()
  await temp?.cleanup()
})

describe('sealed like the service', () => {
  it('is verified when the seal root and the TSA root are trust anchors', async () => {
    const result = await verifyPdf(fixtures.sealed as Uint8Array, { trustAnchors: anchors })
    expect(result.verdict, result.problems.join('\n')).toBe('verified')
    expect(result.problems).toEqual([])
    expect(result.fileSha256).toBe(
      createHash('sha256')
        .update(fixtures.sealed as Uint8Array)
        .digest('hex'),
    )
    const [signature] = result.signatures
    expect(result.signatures).toHaveLength(1)
    expect(signature).toMatchObject({
      kind: 'signature',
      subFilter: 'ETSI.CAdES.detached',
      coversWholeFile: true,
      digestAlgorithm: 'SHA-256',
      digestMatches: true,
      signatureValid: true,
      disallowedChanges: [],
      verdict: 'verified',
      chain: { valid: true, trusted: true, subjects: ['CN=Signet Test Seal, O=Signet Tests', 'CN=Signet Test Root, O=Signet Tests'] },
      timestamp: { valid: true, coversSignature: true, trusted: true, source: 'signature-time-stamp', tsaName: 'CN=Test Third-Party TSA, O=Test' },
    })
    expect(signature?.signer).toMatchObject({ commonName: 'Signet Test Seal', organization: 'Signet Tests', spkiSha256: await publicKeyPin(ec.leaf.certPem) })
    expect(signature?.byteRange).toHaveLength(4)
    expect(signature?.byteRange[0]).toBe(0)
    // The claimed time (from /M) and the proven time agree to within the test's duration.
    const claimed = Date.parse(signature?.claimedSigningTime ?? '')
    const proven = Date.parse(signature?.timestamp?.time ?? '')
    expect(Math.abs(claimed - proven)).toBeLessThan(60_000)
  })

  it('is verified-untrusted-root without anchors, or when only one of the two chains is anchored', async () => {
    expect((await verifyPdf(fixtures.sealed as Uint8Array)).verdict).toBe('verified-untrusted-root')
    const sealOnly = await verifyPdf(fixtures.sealed as Uint8Array, { trustAnchors: [ec.root.certPem] })
    expect(sealOnly.verdict).toBe('verified-untrusted-root')
    expect(sealOnly.signatures[0]?.chain.trusted).toBe(true)
    expect(sealOnly.signatures[0]?.timestamp?.trusted).toBe(false)
    const tsaOnly = await verifyPdf(fixtures.sealed as Uint8Array, { trustAnchors: [tsa.rootPem] })
    expect(tsaOnly.verdict).toBe('verified-untrusted-root')
    expect(tsaOnly.signatures[0]?.chain.trusted).toBe(false)
  })

  it('accepts anchors as sha256/ pins, DER bytes, or one PEM text holding several certificates', async () => {
    // The seal's root certificate is in the CMS, so its pin suffices. The TSA's root is not in
    // the token: a bare pin of it cannot verify the TSA certificate, so pin the TSA's own key.
    const pins = [await publicKeyPin(ec.root.certDer), await publicKeyPin(tsa.tsaCertPem)]
    expect(pins[0]).toMatch(/^sha256\/[A-Za-z0-9+/]{43}=$/)
    expect((await verifyPdf(fixtures.sealed as Uint8Array, { trustAnchors: pins })).verdict).toBe('verified')
    const rootPinOnly = await verifyPdf(fixtures.sealed as Uint8Array, { trustAnchors: [pins[0] as string, await publicKeyPin(tsa.rootPem)] })
    expect(rootPinOnly.verdict).toBe('verified-untrusted-root')
    expect(rootPinOnly.signatures[0]?.timestamp?.trusted).toBe(false)
    expect((await verifyPdf(fixtures.sealed as Uint8Array, { trustAnchors: [ec.root.certDer, tsa.rootPem] })).verdict).toBe('verified')
    expect((await verifyPdf(fixtures.sealed as Uint8Array, { trustAnchors: [ec.root.certPem + tsa.rootPem] })).verdict).toBe('verified')
    // An intermediate-level anchor works too: pinning the leaf's own key trusts the signer.
    expect((await verifyPdf(fixtures.sealed as Uint8Array, { trustAnchors: [await publicKeyPin(ec.leaf.certPem), tsa.rootPem] })).verdict).toBe('verified')
  })

  it('reports unreadable anchors and trusts nothing from them', async () => {
    const result = await verifyPdf(fixtures.sealed as Uint8Array, { trustAnchors: ['not a certificate', 'sha256/short', tsa.rootPem] })
    expect(result.verdict).toBe('verified-untrusted-root')
    expect(result.problems.filter((problem) => problem.startsWith('trust anchor #'))).toHaveLength(2)
  })

  it.each([
    ['RSA PKCS#1 v1.5 with SHA-384', 'rsa384', 'SHA-384'],
    ['ECDSA with SHA-512', 'ec512', 'SHA-512'],
  ])('is verified with %s', async (_label, name, digest) => {
    const result = await verifyPdf(fixtures[name] as Uint8Array, { trustAnchors: anchors })
    expect(result.verdict, result.problems.join('\n')).toBe('verified')
    expect(result.signatures[0]?.digestAlgorithm).toBe(digest)
  })

  it('rejects libpdf 0.4.2 RSA-PSS signatures, which it mislabels as PKCS#1 v1.5 (pdfsig agrees)', async () => {
    const result = await verifyPdf(fixtures.rsaPss512 as Uint8Array, { trustAnchors: anchors })
    expect(result.verdict).toBe('unverified')
    expect(result.signatures[0]).toMatchObject({ digestMatches: true, signatureValid: false })
    if (oracles) expect(await pdfsig(await temp.file('pss.pdf', fixtures.rsaPss512 as Uint8Array))).toContain('Signature is Invalid.')
  })

  it('is signed-untimed without a timestamp (B-B)', async () => {
    const result = await verifyPdf(fixtures.untimed as Uint8Array, { trustAnchors: anchors })
    expect(result.verdict).toBe('signed-untimed')
    expect(result.signatures[0]).toMatchObject({ digestMatches: true, signatureValid: true, timestamp: null, chain: { valid: true, trusted: true } })
    expect(result.problems.join('\n')).toMatch(/no RFC 3161 timestamp/)
  })

  it('checks certificate validity at the proven time, else at options.now', async () => {
    const later = new Date(Date.now() + 400 * 86_400_000)
    // The seal's certificate has expired by then, but the timestamp proves it signed while valid.
    expect((await verifyPdf(fixtures.sealed as Uint8Array, { trustAnchors: anchors, now: later })).verdict).toBe('verified')
    const untimed = await verifyPdf(fixtures.untimed as Uint8Array, { trustAnchors: anchors, now: later })
    expect(untimed.verdict).toBe('unverified')
    expect(untimed.signatures[0]?.chain.valid).toBe(false)
    expect(untimed.signatures[0]?.chain.problems.join('\n')).toMatch(/is not valid at/)
  })
})

describe('allowed updates after the seal', () => {
  it('still verifies after a document timestamp (addTimestamp), which is reported as well', async () => {
    const result = await verifyPdf(fixtures.docTimestamp as Uint8Array, { trustAnchors: anchors })
    expect(result.verdict, result.problems.join('\n')).toBe('verified')
    expect(result.signatures.map((signature) => [signature.kind, signature.subFilter, signature.coversWholeFile])).toEqual([
      ['signature', 'ETSI.CAdES.detached', false],
      ['document-timestamp', 'ETSI.RFC3161', true],
    ])
    expect(result.signatures[0]?.disallowedChanges).toEqual([])
    expect(result.signatures[0]?.revision).toBe(1)
    expect(result.signatures[1]).toMatchObject({
      digestMatches: true,
      signatureValid: true,
      verdict: 'verified',
      timestamp: { source: 'document-timestamp', valid: true, trusted: true },
    })
  })

  it('takes the proven time of an untimed signature from a later document timestamp', async () => {
    const result = await verifyPdf(fixtures.untimedThenDocTimestamp as Uint8Array, { trustAnchors: anchors })
    expect(result.verdict, result.problems.join('\n')).toBe('verified')
    expect(result.signatures[0]?.timestamp).toMatchObject({ source: 'document-timestamp', documentTimestampField: 'Timestamp_1', valid: true })
  })

  it.each(['blt', 'blta', 'validationDataLater', 'archival'])('still verifies after the DSS / archival updates of %s', async (name) => {
    const result = await verifyPdf(fixtures[name] as Uint8Array, { trustAnchors: anchors })
    expect(result.verdict, result.problems.join('\n')).toBe('verified')
    expect(result.signatures.every((signature) => signature.disallowedChanges.length === 0)).toBe(true)
    expect(result.signatures[0]?.notes.join('\n')).toMatch(/DSS/)
  })
})

describe.skipIf(!oracles)('external oracles agree', () => {
  it('pdfsig says the seal is valid and covers the whole document', async () => {
    for (const name of ['sealed', 'rsa384', 'untimed']) {
      const text = await pdfsig(await temp.file(`${name}.pdf`, fixtures[name] as Uint8Array))
      expect(text).toContain('Signature is Valid.')
      expect(text).toContain('Total document signed')
    }
  })

  it('openssl ts -verify accepts the signature-time-stamp for the hash of the signature value', async () => {
    const bytes = fixtures.sealed as Uint8Array
    const cms = parseSignedData(contentsBytes(bytes, locateSignature(bytes)))
    const info = cms.signerInfos[0]
    const token = info && findAttribute(info.unsignedAttributes, OID.signatureTimeStamp)?.values[0]
    expect(token).toBeDefined()
    const tokenFile = await temp.file('token.tsr', raw(token!))
    const digest = createHash('sha256').update(info!.signature).digest('hex')
    const { stdout } = await run(
      'openssl',
      ['ts', '-verify', '-digest', digest, '-in', tokenFile, '-token_in', '-CAfile', tsa.rootFile, '-untrusted', tsa.tsaCertFile],
      { encoding: 'utf8' },
    )
    expect(stdout).toContain('Verification: OK')
    // And with the hash of something else, OpenSSL refuses, as we do.
    const wrong = createHash('sha256').update('something else').digest('hex')
    await expect(
      run('openssl', ['ts', '-verify', '-digest', wrong, '-in', tokenFile, '-token_in', '-CAfile', tsa.rootFile, '-untrusted', tsa.tsaCertFile]),
    ).rejects.toThrow()
  })
})

it('exports every verdict', () => {
  expect([...VERDICTS].sort()).toEqual(['mismatch', 'no-signature', 'signed-untimed', 'unsupported', 'unverified', 'verified', 'verified-untrusted-root'])
})

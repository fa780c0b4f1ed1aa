import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { haveTools } from '../../../test-support/tools.ts'
import { verifyPdf } from '../src/index.ts'
import { createPki, openssl, signerFor, type Pki } from './helpers/pki.ts'
import { locateSignature, makeBasePdf, overwrite } from './helpers/pdf.ts'
import { pkcs7Placeholder, resignWithOpenssl } from './helpers/cms.ts'
import { pdfsig, tempDir } from './helpers/env.ts'

/*
 * Signatures made by other tools than the service's: poppler's pdfsig signing with an
 * NSS database, and OpenSSL's `cms -sign` over the ByteRange of a placeholder PDF.
 */

const run = promisify(execFile)
const haveNss = haveTools('pdfsig', 'openssl', 'certutil', 'pk12util')
const haveOpenssl = haveTools('openssl')

let temp: Awaited<ReturnType<typeof tempDir>>
let ec: Pki
let rsa: Pki
let base: Uint8Array
let placeholder: Uint8Array
let rsaPlaceholder: Uint8Array

beforeAll(async () => {
  temp = await tempDir()
  ;[ec, rsa] = await Promise.all([createPki(temp.dir, 'ec'), createPki(temp.dir, 'rsa', 'Other Tools RSA')])
  base = await makeBasePdf('Signed by another tool')
  placeholder = await pkcs7Placeholder(base, await signerFor(ec.leaf, [ec.root], 'ec'))
  rsaPlaceholder = await pkcs7Placeholder(base, await signerFor(rsa.leaf, [rsa.root], 'rsa'))
})

afterAll(async () => {
  await temp?.cleanup()
})

describe.skipIf(!haveNss)('pdfsig -add-signature with an NSS database', () => {
  let signed: Uint8Array

  beforeAll(async () => {
    const nssDir = join(temp.dir, 'nss')
    await run('mkdir', ['-p', nssDir])
    await run('certutil', ['-N', '-d', `sql:${nssDir}`, '--empty-password'])
    // poppler 22.12 cannot size its placeholder for EC keys; NSS signing is tested with RSA.
    await openssl(
      temp.dir,
      'pkcs12',
      '-export',
      '-in',
      rsa.leaf.certFile,
      '-inkey',
      rsa.leaf.keyFile,
      '-certfile',
      rsa.root.certFile,
      '-name',
      'signet-nss',
      '-passout',
      'pass:',
      '-out',
      'nss.p12',
    )
    await run('pk12util', ['-i', join(temp.dir, 'nss.p12'), '-d', `sql:${nssDir}`, '-W', ''])
    const input = await temp.file('nss-in.pdf', base)
    const output = join(temp.dir, 'nss-out.pdf')
    await run('pdfsig', [
      '-add-signature',
      '-nssdir',
      `sql:${nssDir}`,
      '-nick',
      'signet-nss',
      '-digest',
      'SHA256',
      '-new-signature-field-name',
      'NSS',
      input,
      output,
    ])
    signed = new Uint8Array(await import('node:fs/promises').then((fs) => fs.readFile(output)))
  })

  it('is signed-untimed, with everything valid once its root is anchored', async () => {
    expect(await pdfsig(await temp.file('nss-check.pdf', signed))).toContain('Signature is Valid.')
    const result = await verifyPdf(signed, { trustAnchors: [rsa.root.certPem] })
    expect(result.verdict, result.problems.join('\n')).toBe('signed-untimed')
    expect(result.signatures[0]).toMatchObject({
      fieldName: 'NSS',
      subFilter: 'adbe.pkcs7.detached',
      coversWholeFile: true,
      digestMatches: true,
      signatureValid: true,
      chain: { valid: true, trusted: true },
      disallowedChanges: [],
      timestamp: null,
    })
    expect(result.signatures[0]?.signer?.commonName).toBe('Other Tools RSA Seal')
  })

  it('is mismatch when a signed byte is changed, as pdfsig says too', async () => {
    const { byteRange } = locateSignature(signed)
    const at = byteRange[1] - 200
    const tampered = overwrite(signed, at, String.fromCharCode(((signed[at] as number) ^ 0x01) & 0x7f || 0x20))
    expect(await pdfsig(await temp.file('nss-tampered.pdf', tampered))).toContain('Digest Mismatch.')
    expect((await verifyPdf(tampered, { trustAnchors: [rsa.root.certPem] })).verdict).toBe('mismatch')
  })
})

describe.skipIf(!haveOpenssl)('openssl cms -sign over the ByteRange (adbe.pkcs7.detached)', () => {
  it('is signed-untimed with valid digest, signature and chain (ECDSA, SHA-256)', async () => {
    const signed = await resignWithOpenssl(placeholder, ec.leaf, [ec.root])
    const result = await verifyPdf(signed, { trustAnchors: [ec.root.certPem] })
    expect(result.verdict, result.problems.join('\n')).toBe('signed-untimed')
    expect(result.signatures[0]).toMatchObject({
      subFilter: 'adbe.pkcs7.detached',
      digestMatches: true,
      signatureValid: true,
      chain: { valid: true, trusted: true },
    })
    if (haveTools('pdfsig')) expect(await pdfsig(await temp.file('openssl-cms.pdf', signed))).toContain('Signature is Valid.')
  })

  it('verifies RSA-PSS (SHA-512) as OpenSSL labels it, with its parameters', async () => {
    const signed = await resignWithOpenssl(rsaPlaceholder, rsa.leaf, [rsa.root], undefined, 0, 'sha512', [
      '-keyopt',
      'rsa_padding_mode:pss',
      '-keyopt',
      'rsa_pss_saltlen:64',
    ])
    const result = await verifyPdf(signed, { trustAnchors: [rsa.root.certPem] })
    expect(result.verdict, result.problems.join('\n')).toBe('signed-untimed')
    expect(result.signatures[0]).toMatchObject({ digestAlgorithm: 'SHA-512', digestMatches: true, signatureValid: true })
  })

  it('verifies a signature without signed attributes (signature directly over the content)', async () => {
    const signed = await resignWithOpenssl(placeholder, ec.leaf, [ec.root], undefined, 0, 'sha256', ['-noattr'])
    const result = await verifyPdf(signed, { trustAnchors: [ec.root.certPem] })
    expect(result.verdict, result.problems.join('\n')).toBe('signed-untimed')
    const tampered = overwrite(signed, 20, 'X')
    expect(['mismatch', 'unverified']).toContain((await verifyPdf(tampered)).verdict)
  })

  it('is unverified when the certificates are left out and the root is not anchored... and found via the anchor when it is', async () => {
    const leafOnly = await resignWithOpenssl(placeholder, ec.leaf, [])
    const anchored = await verifyPdf(leafOnly, { trustAnchors: [ec.root.certPem] })
    expect(anchored.verdict).toBe('signed-untimed')
    expect(anchored.signatures[0]?.chain.subjects).toHaveLength(2)
    const bare = await verifyPdf(leafOnly)
    expect(bare.verdict).toBe('signed-untimed')
    expect(bare.signatures[0]?.chain.trusted).toBe(false)
    expect(bare.signatures[0]?.chain.problems.join('\n')).toMatch(/chain incomplete/)
  })
})

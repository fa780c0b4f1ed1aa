import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { PDF } from '@libpdf/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { haveTools } from '../../../test-support/tools.ts'
import { publicKeyPin, verifyPdf } from '../src/index.ts'
import { createPki, signerFor, type Pki } from './helpers/pki.ts'
import { indexOf, locateSignature, makeBasePdf, overwrite } from './helpers/pdf.ts'
import { appendUpdate, findObject, latestObject } from './helpers/update.ts'
import { tempDir } from './helpers/env.ts'

/* Files that are not (validly) signed, odd inputs, and the small public helpers. */

const run = promisify(execFile)

let temp: Awaited<ReturnType<typeof tempDir>>
let ec: Pki
let base: Uint8Array
let signed: Uint8Array

beforeAll(async () => {
  temp = await tempDir()
  ec = await createPki(temp.dir, 'ec')
  base = await makeBasePdf()
  signed = (await (await PDF.load(base)).sign({ signer: await signerFor(ec.leaf, [ec.root], 'ec') })).bytes
})

afterAll(async () => {
  await temp?.cleanup()
})

describe('unsigned documents', () => {
  it('a PDF without a form is no-signature', async () => {
    const result = await verifyPdf(base)
    expect(result).toMatchObject({ verdict: 'no-signature', signatures: [] })
    expect(result.problems[0]).toMatch(/no interactive form/)
    expect(result.fileSha256).toBe(createHash('sha256').update(base).digest('hex'))
  })

  it('a PDF whose only signature field is empty is no-signature', async () => {
    const root = findObject(base, /\/Type \/Catalog/)
    const page = findObject(base, /\/Type \/Page\b/)
    const withField = appendUpdate(base, {
      [root]: latestObject(base, root).replace('/Type /Catalog', '/Type /Catalog /AcroForm 40 0 R'),
      40: '<< /Fields [41 0 R] /SigFlags 1 >>',
      41: `<< /FT /Sig /T (Empty) /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /P ${page} 0 R >>`,
    })
    const result = await verifyPdf(withField)
    expect(result.verdict).toBe('no-signature')
    expect(result.problems[0]).toMatch(/no signed signature fields/)
  })
})

describe('inputs that are not PDFs, or broken ones', () => {
  it('random bytes, empty input and a truncated file are unsupported, without throwing', async () => {
    const random = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 251)
    for (const input of [random, new Uint8Array(0), new TextEncoder().encode('%PDF-1.7\nstartxref\n5\n%%EOF'), base.subarray(0, base.length - 40)]) {
      const result = await verifyPdf(input)
      expect(result.verdict).toBe('unsupported')
      expect(result.problems[0]).toMatch(/not a readable PDF/)
    }
    // Cut inside the signing update: what remains is the unsigned original plus a damaged tail.
    const truncated = await verifyPdf(signed.subarray(0, Math.floor(signed.length / 2)))
    expect(truncated.verdict).toBe('unsupported')
    expect(truncated.problems.join('\n')).toMatch(/damaged/)
  })

  it('an unknown SubFilter is unsupported', async () => {
    const at = indexOf(signed, '/SubFilter /ETSI.CAdES.detached')
    expect(at).toBeGreaterThan(0)
    // Same length, so every offset stays right: only the SubFilter is unknown.
    const renamed = overwrite(signed, at, '/SubFilter /adbe.x509.rsa_sha1 ')
    const result = await verifyPdf(renamed)
    expect(result.verdict).toBe('unsupported')
    expect(result.signatures[0]).toMatchObject({ subFilter: 'adbe.x509.rsa_sha1', verdict: 'unsupported' })
    expect(result.problems.join('\n')).toMatch(/unsupported signature format/)
  })

  it('/Contents that is not CMS is unsupported', async () => {
    const location = locateSignature(signed)
    const garbage = overwrite(signed, location.contentsStart + 1, 'DEADBEEF')
    const result = await verifyPdf(garbage)
    expect(result.verdict).toBe('unsupported')
    expect(result.problems.join('\n')).toMatch(/not a CMS SignedData/)
  })

  it('never throws and never says verified for a damaged signed file (seeded fuzz)', async () => {
    const location = locateSignature(signed)
    let seed = 42
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
    const reference = await verifyPdf(signed)
    expect(reference.verdict).toBe('signed-untimed')
    for (let i = 0; i < 150; i++) {
      const at = next() % signed.length
      const damaged = signed.slice()
      damaged[at] = next() % 256
      if (damaged[at] === signed[at]) continue
      const result = await verifyPdf(i % 5 === 0 ? damaged.subarray(0, next() % signed.length) : damaged)
      // A byte inside the unsigned /Contents padding changes nothing that is signed.
      const inPadding = at > location.contentsStart && at < location.contentsEnd - 1
      if (result.verdict === 'signed-untimed') expect(inPadding, `byte ${at}`).toBe(true)
      expect(result.verdict).not.toBe('verified')
    }
  })

  it("does not modify the caller's buffer (even a Node Buffer)", async () => {
    const buffer = Buffer.from(signed)
    const before = createHash('sha256').update(buffer).digest('hex')
    await verifyPdf(buffer, { trustAnchors: [Buffer.from(ec.root.certDer)] })
    expect(createHash('sha256').update(buffer).digest('hex')).toBe(before)
  })
})

describe('publicKeyPin', () => {
  it.skipIf(!haveTools('openssl'))('equals the SHA-256 of the SubjectPublicKeyInfo as OpenSSL computes it', async () => {
    const { stdout } = await run(
      'sh',
      ['-c', `openssl x509 -in '${ec.root.certFile}' -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64`],
      { encoding: 'utf8' },
    )
    const expected = `sha256/${stdout.trim()}`
    expect(await publicKeyPin(ec.root.certPem)).toBe(expected)
    expect(await publicKeyPin(ec.root.certDer)).toBe(expected)
    const { stdout: publicKeyPem } = await run('openssl', ['x509', '-in', ec.root.certFile, '-pubkey', '-noout'], { encoding: 'utf8' })
    expect(await publicKeyPin(publicKeyPem)).toBe(expected)
  })

  it('throws on input that holds no certificate', async () => {
    await expect(publicKeyPin('hello')).rejects.toThrow(TypeError)
    await expect(publicKeyPin(new Uint8Array([1, 2, 3]))).rejects.toThrow(TypeError)
  })

  it('a PUBLIC KEY PEM works as a trust anchor', async () => {
    const { stdout } = await run('openssl', ['x509', '-in', ec.root.certFile, '-pubkey', '-noout'], { encoding: 'utf8' })
    const result = await verifyPdf(signed, { trustAnchors: [stdout] })
    expect(result.signatures[0]?.chain.trusted).toBe(true)
  })
})

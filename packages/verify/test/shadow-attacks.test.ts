import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { HttpTimestampAuthority, PDF } from '@libpdf/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { haveTools } from '../../../test-support/tools.ts'
import { startOpensslTsa, type OpensslTsa } from '../../../test-support/openssl-tsa.ts'
import { verifyPdf, type VerifyResult } from '../src/index.ts'
import { createPki, signerFor, type Pki } from './helpers/pki.ts'
import { offlineRevocation, pdfsig, tempDir } from './helpers/env.ts'
import { appendUpdate, latestObject } from './helpers/update.ts'
import {
  ATTACKS,
  buildAttack,
  compressedPdf,
  FORGED_TEXT,
  preparedPdf,
  reservedFieldPdf,
  sharedRolePdf,
  signPrepared,
  type CorpusContext,
  type Prepared,
} from './helpers/shadow-corpus.ts'

/*
 * Shadow attacks: a prepared document is signed, then changed by an incremental update
 * that leaves every signed byte alone. Each fixture of the corpus must (1) really change
 * page 1 as poppler renders it — otherwise it proves nothing — while (2) pdfsig still
 * calls the signature valid, and (3) signet-verify must answer "mismatch", naming the
 * changed object. The updates that may follow a signature stay "verified" and leave the
 * rendering alone.
 */

const run = promisify(execFile)
const poppler = haveTools('pdftoppm', 'pdftotext', 'pdfsig')

let tsa: OpensslTsa
let temp: Awaited<ReturnType<typeof tempDir>>
let pki: Pki
let anchors: string[]
let authority: HttpTimestampAuthority
let context: CorpusContext
let seal: (prepared: Uint8Array, fieldName: string) => Promise<Uint8Array>

async function check(bytes: Uint8Array): Promise<VerifyResult> {
  return verifyPdf(bytes, { trustAnchors: anchors })
}

/** Page 1 as poppler draws it (grey PGM, 30 dpi) and the text it extracts. */
async function render(bytes: Uint8Array, name: string): Promise<{ pixels: Buffer; text: string }> {
  const file = await temp.file(`${name.replace(/[^a-z0-9-]+/gi, '-')}.pdf`, bytes)
  const pixels = (await run('pdftoppm', ['-r', '30', '-gray', '-f', '1', '-l', '1', file], { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 })).stdout
  const text = await run('pdftotext', ['-f', '1', '-l', '1', file, '-'], { encoding: 'utf8' })
    .then((result) => result.stdout)
    .catch(() => '')
  return { pixels, text }
}

beforeAll(async () => {
  temp = await tempDir('signet-shadow-')
  tsa = await startOpensslTsa()
  authority = new HttpTimestampAuthority(tsa.url)
  pki = await createPki(temp.dir, 'ec')
  anchors = [pki.root.certPem, tsa.rootPem]
  const signer = await signerFor(pki.leaf, [pki.root], 'ec')
  seal = async (prepared, fieldName) => (await (await PDF.load(prepared)).sign({ signer, level: 'B-T', timestampAuthority: authority, fieldName })).bytes
  const signed = await signPrepared((prepared) => seal(prepared, 'Seal'))
  context = { signed, certificate: pki.root.certDer }
})

afterAll(async () => {
  await tsa?.close()
  await temp?.cleanup()
})

const PREPARED: Record<Prepared, () => Uint8Array> = { plain: preparedPdf, shared: sharedRolePdf, compressed: compressedPdf }

describe('the signed prepared documents (controls)', () => {
  it.each(Object.keys(PREPARED) as Prepared[])('%s: verified, and signing did not change what poppler shows', async (prepared) => {
    const result = await check(context.signed[prepared])
    expect(result.verdict, result.problems.join('\n')).toBe('verified')
    if (!poppler) return
    const before = await render(PREPARED[prepared](), `${prepared}-unsigned`)
    const after = await render(context.signed[prepared], `${prepared}-signed`)
    expect(after.pixels.equals(before.pixels)).toBe(true)
    expect(after.text).toContain('Clause 7: the fee is waived')
  })
})

describe('the corpus: every attack changes the page, fools pdfsig, and is a mismatch here', () => {
  it.each(ATTACKS.map((attack) => [attack.name, attack] as const))('%s', async (name, attack) => {
    const bytes = buildAttack(attack, context)
    if (poppler) {
      const signed = await render(context.signed[attack.prepared], `${name}-signed`)
      const attacked = await render(bytes, name)
      expect(attacked.pixels.equals(signed.pixels), `${name}: poppler draws page 1 as it was signed, so this is no attack`).toBe(false)
      const report = await pdfsig(await temp.file(`${name}-pdfsig.pdf`, bytes))
      expect(report).toContain('Signature is Valid.')
      expect(report).toContain('Not total document signed')
    }
    const result = await check(bytes)
    expect(result.verdict).toBe('mismatch')
    const [signature] = result.signatures
    // The CMS signature still matches its bytes: only the analysis of the update can catch this.
    expect(signature).toMatchObject({ digestMatches: true, signatureValid: true, verdict: 'mismatch' })
    expect(signature?.disallowedChanges.length).toBeGreaterThan(0)
    for (const change of signature?.disallowedChanges ?? []) expect(change).toMatch(/object \d+|annotation/)
  })

  it('names the object, what changed and why, also when an update re-points /Info, /Fields or /DSS at it', async () => {
    const changes = async (name: string): Promise<string> => {
      const attack = ATTACKS.find((candidate) => candidate.name === name)
      if (!attack) throw new Error(name)
      return (await check(buildAttack(attack, context))).signatures[0]?.disallowedChanges.join('\n') ?? ''
    }
    expect(await changes('info-aliases-content')).toMatch(
      /object 5 \(page 1 \/Contents\[0\]; the update now reaches it as the trailer \/Info\) was changed after signing: page 1 as signed is drawn with it/,
    )
    expect(await changes('info-aliases-optional-content')).toMatch(
      /object 10 \(the catalog \/OCProperties \/D; .*\/Info\) was changed after signing: it decides which optional content/,
    )
    expect(await changes('fields-aliases-contents-array')).toMatch(/object 6 \(page 1 \/Contents; the update now reaches it as the form \/Fields\) was changed/)
    expect(await changes('dss-update-rewrites-shared-ocproperties')).toMatch(
      /object 9 \(the catalog \/OCProperties, and also validation data \(\/DSS\).*\) was changed/,
    )
    expect(await changes('square-claims-signature-field')).toMatch(
      /a \/Square annotation "Approval" was added as part of a signature field, but only an invisible widget may be added/,
    )
    expect(await changes('object-stream-redefined')).toMatch(/object 4 \(page 1 \/Resources \/Font \/F1\) was changed/)
  })

  it.skipIf(!poppler)('the rendering proves the forged text where the attack writes text', async () => {
    for (const name of ['info-aliases-content', 'dss-aliases-content', 'info-alias-with-square-overlay']) {
      const attack = ATTACKS.find((candidate) => candidate.name === name)
      if (!attack) throw new Error(name)
      expect((await render(buildAttack(attack, context), `${name}-text`)).text, name).toContain(FORGED_TEXT)
    }
  })

  it('the CLI prints each disallowed change', async () => {
    const attack = ATTACKS.find((candidate) => candidate.name === 'info-aliases-font')
    if (!attack) throw new Error('missing attack')
    const file = await temp.file('cli-attack.pdf', buildAttack(attack, context))
    const bin = fileURLToPath(new URL('../bin/signet-verify.mjs', import.meta.url))
    const outcome = await run(process.execPath, [bin, file, '--trust', pki.root.certFile, '--trust', tsa.rootFile], { encoding: 'utf8' }).catch(
      (error: { code: number; stdout: string }) => error,
    )
    expect(outcome).toMatchObject({ code: 6 })
    expect(outcome.stdout).toMatch(/^Verdict: mismatch/)
    expect(outcome.stdout).toContain(
      '! changed after signing: object 4 (page 1 /Resources /Font /F1; the update now reaches it as the trailer /Info) was changed after signing',
    )
  })
})

describe('updates that may follow a signature stay verified and change nothing poppler shows', () => {
  const permitted: [string, (signed: Uint8Array) => Promise<Uint8Array>][] = [
    ['validation data (DSS, B-LT)', async (signed) => (await (await PDF.load(signed)).addValidationData({ revocationProvider: offlineRevocation })).bytes],
    ['a document timestamp', async (signed) => (await (await PDF.load(signed)).addTimestamp({ timestampAuthority: authority })).bytes],
    [
      'validation data and a document timestamp (B-LTA)',
      async (signed) => (await (await PDF.load(signed)).addArchivalData({ timestampAuthority: authority, revocationProvider: offlineRevocation })).bytes,
    ],
    ['a new /Info title', async (signed) => appendUpdate(signed, { 7: latestObject(signed, 7).replace('Services contract', 'Renamed') })],
    ['/Info re-pointed at a used object that is not redefined', async (signed) => appendUpdate(signed, {}, { info: '5 0 R' })],
  ]
  const cases = (['plain', 'shared', 'compressed'] as const).flatMap((prepared) =>
    permitted.map(([name, update]) => [`${prepared}: ${name}`, prepared, update] as const),
  )

  it.each(cases)('%s', async (name, prepared, update) => {
    const updated = await update(context.signed[prepared])
    const result = await check(updated)
    expect(result.verdict, result.problems.join('\n')).toBe('verified')
    expect(result.signatures.every((signature) => signature.disallowedChanges.length === 0)).toBe(true)
    if (!poppler) return
    const before = await render(context.signed[prepared], `${name}-before`)
    const after = await render(updated, `${name}-after`)
    expect(after.pixels.equals(before.pixels)).toBe(true)
  })
})

describe('a signature field reserved before signing', () => {
  const timestampInto = async (signed: Uint8Array, fieldName: string): Promise<Uint8Array> =>
    (await (await PDF.load(signed)).addTimestamp({ timestampAuthority: authority, fieldName })).bytes

  it('may later receive a document timestamp when its widget is invisible', async () => {
    const signed = await seal(reservedFieldPdf('[0 0 0 0]'), 'Seal')
    const result = await check(await timestampInto(signed, 'Reserved'))
    expect(result.verdict, result.problems.join('\n')).toBe('verified')
    expect(result.signatures.map((signature) => signature.kind)).toEqual(['signature', 'document-timestamp'])
    expect(result.signatures[0]?.notes.join('\n')).toMatch(/empty signature field "Reserved" received a document timestamp/)
  })

  it('may not be filled when its widget is visible (libpdf then moves the widget: a change too)', async () => {
    const signed = await seal(reservedFieldPdf('[72 500 300 560]'), 'Seal')
    const result = await check(await timestampInto(signed, 'Reserved'))
    expect(result.signatures[0]?.verdict).toBe('mismatch')
    expect(result.signatures[0]?.disallowedChanges.join('\n')).toMatch(/signature field object 12: \/Rect was changed/)
    // With the widget put back where it was signed, the filled field itself is refused for being visible.
    const timestamped = await timestampInto(signed, 'Reserved')
    const restored = appendUpdate(timestamped, { 12: latestObject(timestamped, 12).replace(/\/Rect \[[^\]]*\]/, '/Rect [72 500 300 560]') })
    expect((await check(restored)).signatures[0]?.disallowedChanges.join('\n')).toMatch(/signature widget "Reserved" is visible/)
  })

  it('may not later hold an approval signature', async () => {
    const signed = await seal(reservedFieldPdf('[0 0 0 0]'), 'Seal')
    const twice = await seal(signed, 'Reserved')
    const result = await check(twice)
    expect(result.signatures.map((signature) => signature.verdict)).toEqual(['mismatch', 'verified'])
    expect(result.signatures[0]?.disallowedChanges.join('\n')).toMatch(
      /signature field "Reserved", empty when this signature was made, now holds an approval signature/,
    )
  })

  it.skipIf(!poppler)('may not change its appearance without being signed (a visible box repainted)', async () => {
    const signed = await seal(reservedFieldPdf('[50 600 562 760]'), 'Seal')
    const repainted = appendUpdate(signed, {
      12: latestObject(signed, 12).replace('/FT /Sig', '/FT /Sig /AP << /N 44 0 R >>'),
      44: `<< /Type /XObject /Subtype /Form /BBox [0 0 512 160] /Resources << /Font << /F1 4 0 R >> >> /Length 80 >>\nstream\n1 1 1 rg 0 0 512 160 re f 0 0 0 rg BT /F1 24 Tf 22 100 Td (${FORGED_TEXT}) Tj ET\nendstream`,
    })
    expect((await render(repainted, 'repainted')).pixels.equals((await render(signed, 'reserved-visible')).pixels)).toBe(false)
    const result = await check(repainted)
    expect(result.verdict).toBe('mismatch')
    expect(result.signatures[0]?.disallowedChanges.join('\n')).toMatch(
      /appearance \(\/AP\) of empty signature field object 12 changed although the field was not signed/,
    )
  })
})

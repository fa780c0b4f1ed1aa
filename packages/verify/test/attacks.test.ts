import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'
import { HttpTimestampAuthority, PDF } from '@libpdf/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { haveTools } from '../../../test-support/tools.ts'
import { startOpensslTsa, type OpensslTsa } from '../../../test-support/openssl-tsa.ts'
import { verifyPdf, type VerifyResult } from '../src/index.ts'
import { OID } from '../src/cms/algorithms.ts'
import { findAttribute, parseSignedData } from '../src/cms/signed-data.ts'
import { raw } from '../src/asn1/der.ts'
import { createLeaf, createPki, createRolloverCertificate, createRoot, signerFor, type Pki } from './helpers/pki.ts'
import { append, contentsBytes, indexOf, locateSignature, makeBasePdf, overwrite, setContents } from './helpers/pdf.ts'
import { pkcs7Placeholder, resignWithOpenssl } from './helpers/cms.ts'
import { appendUpdate, findObject, latestObject } from './helpers/update.ts'
import { pdfsig, tempDir } from './helpers/env.ts'

/*
 * The attack classes: each tampered file must come out as "mismatch" (never "verified"),
 * including those where the CMS signature itself is perfectly valid for the bytes the
 * (manipulated) ByteRange names, so only the structural rules can catch them.
 */

const haveOpenssl = haveTools('openssl')
const havePdfsig = haveTools('pdfsig')

let tsa: OpensslTsa
let temp: Awaited<ReturnType<typeof tempDir>>
let ec: Pki
let authority: HttpTimestampAuthority
let base: Uint8Array
let sealed: Uint8Array
let placeholder: Uint8Array
let anchors: string[]

async function sign(input: Uint8Array, fieldName?: string, signer?: Awaited<ReturnType<typeof signerFor>>): Promise<Uint8Array> {
  const pdf = await PDF.load(input)
  return (
    await pdf.sign({
      signer: signer ?? (await signerFor(ec.leaf, [ec.root], 'ec')),
      level: 'B-T',
      timestampAuthority: authority,
      ...(fieldName ? { fieldName } : {}),
    })
  ).bytes
}

async function check(bytes: Uint8Array): Promise<VerifyResult> {
  return verifyPdf(bytes, { trustAnchors: anchors })
}

function problems(result: VerifyResult): string {
  return result.problems.join('\n')
}

beforeAll(async () => {
  temp = await tempDir()
  tsa = await startOpensslTsa()
  authority = new HttpTimestampAuthority(tsa.url)
  ec = await createPki(temp.dir, 'ec')
  anchors = [ec.root.certPem, tsa.rootPem]
  base = await makeBasePdf()
  sealed = await sign(base)
  placeholder = await pkcs7Placeholder(base, await signerFor(ec.leaf, [ec.root], 'ec'))
})

afterAll(async () => {
  await tsa?.close()
  await temp?.cleanup()
})

it('the untampered fixture is verified (so the attacks below fail for their own reason)', async () => {
  expect((await check(sealed)).verdict).toBe('verified')
})

describe('a changed signed byte', () => {
  it('is a digest mismatch, as pdfsig also reports', async () => {
    const at = indexOf(sealed, '/MediaBox [0 0 612 792]') + '/MediaBox [0 0 61'.length
    const tampered = overwrite(sealed, at, '3')
    const result = await check(tampered)
    expect(result.verdict).toBe('mismatch')
    expect(result.signatures[0]).toMatchObject({ digestMatches: false, verdict: 'mismatch' })
    expect(problems(result)).toMatch(/does not match/)
    if (havePdfsig) expect(await pdfsig(await temp.file('flipped.pdf', tampered))).toContain('Digest Mismatch.')
  })
})

describe.skipIf(!haveOpenssl)('ByteRange manipulation (with a CMS signature valid for the bytes it names)', () => {
  async function attack(mutate: (range: [number, number, number, number]) => number[]): Promise<VerifyResult> {
    const { byteRange } = locateSignature(placeholder)
    const bytes = await resignWithOpenssl(placeholder, ec.leaf, [ec.root], mutate(byteRange))
    const result = await check(bytes)
    // The signature is cryptographically fine: only the structure gives the attack away.
    expect(result.signatures[0]).toMatchObject({ digestMatches: true, signatureValid: true })
    return result
  }

  it('the untouched OpenSSL re-signature is fine (control)', async () => {
    const result = await attack((range) => range)
    expect(result.verdict).toBe('signed-untimed')
  })

  it('a ByteRange that does not start at 0', async () => {
    const result = await attack(([a, b, c, d]) => [a + 20, b - 20, c, d])
    expect(result.verdict).toBe('mismatch')
    expect(problems(result)).toMatch(/start at byte 20/)
  })

  it('a ByteRange that stops short of the end of the file', async () => {
    const result = await attack(([a, b, c, d]) => [a, b, c, d - 50])
    expect(result.verdict).toBe('mismatch')
    expect(result.signatures[0]?.coversWholeFile).toBe(false)
    expect(problems(result)).toMatch(/not the end of a revision/)
  })

  it('a gap that hides bytes before /Contents', async () => {
    const result = await attack(([a, b, c, d]) => [a, b - 30, c, d])
    expect(result.verdict).toBe('mismatch')
    expect(problems(result)).toMatch(/not exactly this signature's \/Contents/)
  })

  it('a gap that hides bytes after /Contents', async () => {
    const result = await attack(([a, b, c, d]) => [a, b, c + 10, d - 10])
    expect(result.verdict).toBe('mismatch')
    expect(problems(result)).toMatch(/not exactly this signature's \/Contents/)
  })

  it('three ranges instead of two', async () => {
    const { byteRange } = locateSignature(placeholder)
    const [a, b, c, d] = byteRange
    // Same width: drop the padding spaces to fit two more numbers.
    const result = await check(await resignWithOpenssl(placeholder, ec.leaf, [ec.root], [a, b - 4, b - 4, 2, c, d].map(Number)))
    expect(result.verdict).toBe('mismatch')
    expect(problems(result)).toMatch(/four non-negative integers/)
  })
})

describe('data after the signed revision', () => {
  it('an object appended without a cross-reference update', async () => {
    const tampered = append(sealed, '5 0 obj\n<< /Length 44 >>\nstream\nBT /F0 40 Tf 72 400 Td (PAY 1,000,000) Tj ET\nendstream\nendobj\n')
    const result = await check(tampered)
    expect(result.verdict).toBe('mismatch')
    expect(result.signatures[0]?.coversWholeFile).toBe(false)
    expect(result.signatures[0]?.disallowedChanges.join('\n')).toMatch(/follow the last %%EOF/)
  })

  it('junk ending with a startxref that leads nowhere', async () => {
    for (const junk of ['\ngarbage\nstartxref\n0\n%%EOF\n', '\nstartxref\n99999999\n%%EOF\n']) {
      const result = await check(append(sealed, junk))
      expect(result.verdict, junk).toBe('mismatch')
    }
  })

  it('whitespace after the last %%EOF is harmless', async () => {
    expect((await check(append(sealed, '\n\r\n  \n'))).verdict).toBe('verified')
  })
})

describe('incremental updates after the signature', () => {
  it('drawing on the page (libpdf incremental save) is a disallowed change', async () => {
    const pdf = await PDF.load(sealed)
    pdf.getPage(0)?.drawText('APPROVED FOR 1,000,000', { x: 72, y: 500, size: 24 })
    const tampered = await pdf.save({ incremental: true })
    const result = await check(tampered)
    expect(result.verdict).toBe('mismatch')
    expect(result.signatures[0]?.digestMatches).toBe(true)
    expect(result.signatures[0]?.disallowedChanges.join('\n')).toMatch(/page object \d+ \(page 1\): \/Contents was changed/)
    // pdfsig only notes "Not total document signed" and still calls the signature valid.
    if (havePdfsig) expect(await pdfsig(await temp.file('drawn.pdf', tampered))).toContain('Not total document signed')
  })

  it('adding an annotation is a disallowed change', async () => {
    const pdf = await PDF.load(sealed)
    pdf.getPage(0)?.addSquareAnnotation({ rect: { x: 72, y: 400, width: 200, height: 80 }, contents: 'Void' })
    const result = await check(await pdf.save({ incremental: true }))
    expect(result.verdict).toBe('mismatch')
    expect(result.signatures[0]?.disallowedChanges.join('\n')).toMatch(/Square annotation was added/)
  })

  it('adding a second ordinary (approval) signature after the seal is a disallowed change', async () => {
    const twice = await sign(sealed, 'Second')
    const result = await check(twice)
    expect(result.verdict).toBe('mismatch')
    expect(result.signatures.map((signature) => signature.verdict)).toEqual(['mismatch', 'verified'])
    expect(result.signatures[0]?.disallowedChanges.join('\n')).toMatch(/approval signature/)
  })

  it('changing the catalog (an /OpenAction) is disallowed', async () => {
    const root = findObject(sealed, /\/Type \/Catalog/)
    const catalog = latestObject(sealed, root)
    const tampered = appendUpdate(sealed, { [root]: catalog.replace('/Type /Catalog', '/Type /Catalog /OpenAction << /S /JavaScript /JS (app.alert(1)) >>') })
    const result = await check(tampered)
    expect(result.verdict).toBe('mismatch')
    expect(problems(result)).toMatch(/catalog's \/OpenAction was changed/)
  })

  it('freeing a signed object is disallowed', async () => {
    const content = findObject(sealed, /^<<\s*\/Length \d+\s*>>\s*stream/)
    const result = await check(appendUpdate(sealed, {}, { free: [content] }))
    expect(result.verdict).toBe('mismatch')
    expect(problems(result)).toMatch(new RegExp(`object ${content} .*was deleted`))
  })

  it('a different /Root is disallowed', async () => {
    const root = findObject(sealed, /\/Type \/Catalog/)
    const tampered = appendUpdate(sealed, { 90: latestObject(sealed, root) }, { root: '90 0 R' })
    expect(problems(await check(tampered))).toMatch(/catalog \(\/Root\) was replaced/)
  })

  it('changing /Info is allowed and reported as a metadata note', async () => {
    const info = findObject(sealed, /\/Producer/)
    const result = await check(appendUpdate(sealed, { [info]: latestObject(sealed, info).replace(/\/Title \([^)]*\)/, '/Title (Renamed)') }))
    expect(result.verdict, problems(result)).toBe('verified')
    expect(result.signatures[0]?.notes.join('\n')).toMatch(/\/Info\) changed/)
  })

  it('a DSS updated in place (as some tools do) is allowed', async () => {
    const root = findObject(sealed, /\/Type \/Catalog/)
    const withDss = appendUpdate(sealed, {
      [root]: latestObject(sealed, root).replace('/Type /Catalog', '/Type /Catalog /DSS 70 0 R'),
      70: '<< /Type /DSS /Certs [71 0 R] >>',
      71: `<< /Length ${ec.root.certDer.length} >>\nstream\n${Buffer.from(ec.root.certDer).toString('latin1')}\nendstream`,
    })
    expect((await check(withDss)).verdict).toBe('verified')
    const updated = appendUpdate(withDss, { 70: '<< /Type /DSS /Certs [71 0 R] /VRI << /ABCDEF << /TU (D:20250101000000Z) >> >> >>' })
    const result = await check(updated)
    expect(result.verdict, problems(result)).toBe('verified')
    expect(result.signatures[0]?.notes.join('\n')).toMatch(/DSS/)
  })

  it('rewriting an object unchanged is not a change', async () => {
    const page = findObject(sealed, /\/Type \/Page\b/)
    const result = await check(appendUpdate(sealed, { [page]: latestObject(sealed, page) }))
    expect(result.verdict, problems(result)).toBe('verified')
  })

  it("object data that the update's cross-reference section does not list is noticed", async () => {
    const result = await check(appendUpdate(sealed, {}, { unlisted: '5 0 obj\n<< /Length 2 >>\nstream\nq\nendstream\nendobj\n' }))
    expect(result.verdict).toBe('mismatch')
    expect(problems(result)).toMatch(/not listed in its cross-reference section/)
  })

  it('a zero-area empty signature field may be added; a visible one may not', async () => {
    const form = findObject(sealed, /\/Fields \[/)
    const body = latestObject(sealed, form)
    const page = findObject(sealed, /\/Type \/Page\b/)
    const addField = (rect: string): Uint8Array =>
      appendUpdate(sealed, {
        [form]: body.replace(/\/Fields \[([^\]]*)\]/, '/Fields [$1 60 0 R]'),
        60: `<< /FT /Sig /T (Later) /Type /Annot /Subtype /Widget /Rect ${rect} /P ${page} 0 R >>`,
      })
    expect((await check(addField('[0 0 0 0]'))).verdict).toBe('verified')
    const visible = await check(addField('[50 50 300 120]'))
    expect(visible.verdict).toBe('mismatch')
    expect(problems(visible)).toMatch(/is visible/)
  })

  it('a hidden widget may be added; one that carries an action may not, even when invisible', async () => {
    const form = findObject(sealed, /\/Fields \[/)
    const body = latestObject(sealed, form)
    const page = findObject(sealed, /\/Type \/Page\b/)
    const addField = (extra: string, rect: string): Uint8Array =>
      appendUpdate(sealed, {
        [form]: body.replace(/\/Fields \[([^\]]*)\]/, '/Fields [$1 60 0 R]'),
        60: `<< /FT /Sig /T (Later) /Type /Annot /Subtype /Widget /Rect ${rect} /P ${page} 0 R ${extra} >>`,
      })
    const hidden = await check(addField('/F 2', '[50 50 300 120]'))
    expect(hidden.verdict, problems(hidden)).toBe('verified')
    const acting = await check(addField('/AA << /PO << /S /JavaScript /JS (this.getField("x").display = display.visible) >> >>', '[0 0 0 0]'))
    expect(acting.verdict).toBe('mismatch')
    expect(problems(acting)).toMatch(/carries an action/)
  })

  it('reordering the signed annotations (which draw in order) is a change', async () => {
    const page = findObject(base, /\/Type \/Page\b/)
    const square = (rect: string): string => `<< /Type /Annot /Subtype /Square /Rect ${rect} /C [1 0 0] >>`
    const prepared = appendUpdate(base, {
      [page]: latestObject(base, page).replace('/Type /Page', '/Type /Page /Annots [60 0 R 61 0 R]'),
      60: square('[72 600 200 650]'),
      61: square('[100 620 250 680]'),
    })
    const signed = await sign(prepared)
    expect((await check(signed)).verdict).toBe('verified')
    const swapped = appendUpdate(signed, { [page]: latestObject(signed, page).replace('/Annots [60 0 R 61 0 R]', '/Annots [61 0 R 60 0 R]') })
    expect(problems(await check(swapped))).toMatch(/reordered/)
  })

  it('defining an object the signed revision already referred to (a planted dangling reference) is disallowed', async () => {
    const page = findObject(base, /\/Type \/Page\b/)
    const pageBody = latestObject(base, page)
    const prepared = appendUpdate(base, { [page]: pageBody.replace(/\/Contents (\d+ 0 R)/, '/Contents [$1 99 0 R]') })
    const signed = await sign(prepared)
    expect((await check(signed)).verdict).toBe('verified')
    const filled = appendUpdate(signed, { 99: '<< /Length 45 >>\nstream\nBT /F0 40 Tf 72 400 Td (PAY 1,000,000) Tj ET\nendstream' })
    const result = await check(filled)
    expect(result.verdict).toBe('mismatch')
    expect(problems(result)).toMatch(/already referred to it/)
  })
})

describe('certificates and timestamps that do not prove what they claim', () => {
  it('a chain through a look-alike root (same subject, another key) is not trusted', async () => {
    const fakeRoot = await createRoot(temp.dir, 'fake-root', '/CN=Signet Test Root/O=Signet Tests')
    const fakeLeaf = await createLeaf(temp.dir, 'fake-leaf', '/CN=Signet Test Seal/O=Signet Tests', fakeRoot)
    // The look-alike root travels in the CMS: the chain is sound but ends at an unpinned key.
    const withFakeRoot = await check(await sign(base, undefined, await signerFor(fakeLeaf, [fakeRoot], 'ec')))
    expect(withFakeRoot.verdict).toBe('verified-untrusted-root')
    expect(withFakeRoot.signatures[0]?.chain).toMatchObject({
      valid: true,
      trusted: false,
      subjects: ['CN=Signet Test Seal, O=Signet Tests', 'CN=Signet Test Root, O=Signet Tests'],
    })
    // Without it, the only certificate with the right name is the real anchor, whose key did not sign the leaf.
    const leafOnly = await check(await sign(base, undefined, await signerFor(fakeLeaf, [], 'ec')))
    expect(leafOnly.verdict).toBe('unverified')
    expect(leafOnly.signatures[0]?.chain.valid).toBe(false)
    expect(leafOnly.signatures[0]?.chain.problems.join('\n')).toMatch(/is not signed by the key of any certificate named/)
  })

  it('a key-rollover link certificate (same name as the pinned root, new key, signed by the root) is accepted; a look-alike is not', async () => {
    const subject = '/CN=Rollover Root/O=Signet Tests'
    const root = await createRoot(temp.dir, 'rollover-root', subject)
    const link = await createRolloverCertificate(temp.dir, 'rollover-link', subject, root)
    const leaf = await createLeaf(temp.dir, 'rollover-leaf', '/CN=Rollover Seal/O=Signet Tests', link)
    const rolled = await verifyPdf(await sign(base, undefined, await signerFor(leaf, [link], 'ec')), { trustAnchors: [root.certPem, tsa.rootPem] })
    expect(rolled.verdict, problems(rolled)).toBe('verified')
    expect(rolled.signatures[0]?.chain.subjects).toEqual([
      'CN=Rollover Seal, O=Signet Tests',
      'CN=Rollover Root, O=Signet Tests',
      'CN=Rollover Root, O=Signet Tests',
    ])

    // The same shape from an impostor: a self-issued certificate with that name, signed by another key of that name.
    const impostorRoot = await createRoot(temp.dir, 'impostor-root', subject)
    const impostorLink = await createRolloverCertificate(temp.dir, 'impostor-link', subject, impostorRoot)
    const impostorLeaf = await createLeaf(temp.dir, 'impostor-leaf', '/CN=Rollover Seal/O=Signet Tests', impostorLink)
    const withoutItsRoot = await verifyPdf(await sign(base, undefined, await signerFor(impostorLeaf, [impostorLink], 'ec')), {
      trustAnchors: [root.certPem, tsa.rootPem],
    })
    expect(withoutItsRoot.verdict).toBe('unverified')
    expect(withoutItsRoot.signatures[0]?.chain.problems.join('\n')).toMatch(
      /self-issued certificate "CN=Rollover Root, O=Signet Tests" does not verify with its own key, nor by the key of any certificate named/,
    )
    const withItsRoot = await verifyPdf(await sign(base, undefined, await signerFor(impostorLeaf, [impostorLink, impostorRoot], 'ec')), {
      trustAnchors: [root.certPem, tsa.rootPem],
    })
    expect(withItsRoot.verdict).toBe('verified-untrusted-root')
    expect(withItsRoot.signatures[0]?.chain).toMatchObject({ valid: true, trusted: false })
  })

  it('a signature-time-stamp transplanted from another signature does not time this one', async () => {
    const other = await sign(await makeBasePdf('Another document'))
    const token = (bytes: Uint8Array): { cms: Uint8Array; token: Uint8Array } => {
      const cms = contentsBytes(bytes, locateSignature(bytes))
      const info = parseSignedData(cms).signerInfos[0]
      const value = info && findAttribute(info.unsignedAttributes, OID.signatureTimeStamp)?.values[0]
      if (!value) throw new Error('no signature-time-stamp')
      return { cms, token: raw(value) }
    }
    const donor = token(other).token
    // Re-encode this seal's CMS with the other signature's token in its unsigned attributes.
    const { cms } = token(sealed)
    const contentInfo = pkijs.ContentInfo.fromBER(cms.slice(0, parseSignedData(cms).length))
    const signedData = new pkijs.SignedData({ schema: contentInfo.content })
    const attribute = signedData.signerInfos[0]?.unsignedAttrs?.attributes.find((item) => item.type === OID.signatureTimeStamp)
    if (!attribute) throw new Error('no attribute')
    attribute.values = [asn1js.fromBER(donor.slice()).result]
    const reencoded = new Uint8Array(new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) }).toSchema().toBER())
    const transplanted = setContents(sealed, locateSignature(sealed), reencoded)

    const result = await check(transplanted)
    expect(result.verdict).toBe('unverified')
    expect(result.signatures[0]).toMatchObject({ digestMatches: true, signatureValid: true })
    expect(result.signatures[0]?.timestamp).toMatchObject({ coversSignature: false, valid: false })
    expect(problems(result)).toMatch(/messageImprint/)
  })
})

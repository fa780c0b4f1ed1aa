import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { deflateSync } from 'node:zlib'
import { promisify } from 'node:util'
import { HttpTimestampAuthority, PDF } from '@libpdf/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { haveTools } from '../../../test-support/tools.ts'
import { startOpensslTsa, type OpensslTsa } from '../../../test-support/openssl-tsa.ts'
import { verifyPdf } from '../src/index.ts'
import { PdfDocument } from '../src/pdf/document.ts'
import { Lexer } from '../src/pdf/lexer.ts'
import { PdfDict, PdfName, PdfRef, textOf, type PdfString } from '../src/pdf/objects.ts'
import { parseValue } from '../src/pdf/parser.ts'
import { createPki, signerFor, type Pki } from './helpers/pki.ts'
import { makeBasePdf } from './helpers/pdf.ts'
import { tempDir } from './helpers/env.ts'

/*
 * The PDF layer: tokens, cross-reference streams with predictors, object streams,
 * hybrid files, and real files from qpdf (object streams, linearized) signed by libpdf.
 */

const run = promisify(execFile)
const haveQpdf = haveTools('qpdf')

function parse(text: string): ReturnType<typeof parseValue> {
  return parseValue(new Lexer(new TextEncoder().encode(text)))
}

describe('lexer and parser', () => {
  it('reads strings, names, references and nested containers', () => {
    const value = parse('<< /A (x\\(y\\)\\n\\101\\\\) /B <48 65 6C6C 6F7> /C#20D [1 0 R 2 -3.5 true null /N] /E << /F 12 0 R >> >>')
    expect(value).toBeInstanceOf(PdfDict)
    const dict = value as PdfDict
    expect(new TextDecoder().decode((dict.get('A') as PdfString).bytes)).toBe('x(y)\nA\\')
    expect(Array.from((dict.get('B') as PdfString).bytes)).toEqual([0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x70])
    expect(dict.get('C D')).toEqual([new PdfRef(1, 0), 2, -3.5, true, null, new PdfName('N')])
    expect((dict.get('E') as PdfDict).get('F')).toEqual(new PdfRef(12, 0))
    expect(textOf(parse('<FEFF00E9>'))).toBe('é')
  })

  it('refuses absurd nesting instead of overflowing the stack', () => {
    expect(() => parse('['.repeat(10_000))).toThrow(/nested too deeply/)
  })
})

/** PNG "Up" predictor rows, as qpdf writes cross-reference streams. */
function upPredicted(rows: number[][]): Uint8Array {
  const out: number[] = []
  let previous = new Array<number>(rows[0]?.length ?? 0).fill(0)
  for (const row of rows) {
    out.push(2, ...row.map((byte, i) => (byte - (previous[i] as number) + 256) & 0xff))
    previous = row
  }
  return new Uint8Array(out)
}

describe('hybrid-reference file (xref table plus /XRefStm, object in an object stream)', () => {
  it('resolves objects from the stream the table does not list', async () => {
    const parts: string[] = ['%PDF-1.5\n']
    const length = (): number => Buffer.byteLength(parts.join(''), 'latin1')
    const catalogAt = length()
    parts.push('1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n')
    const pagesAt = length()
    parts.push('2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n')
    const objects = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>'
    const header = '3 0 '
    const objStm = deflateSync(Buffer.from(header + objects, 'latin1')).toString('latin1')
    const objStmAt = length()
    parts.push(
      `4 0 obj\n<< /Type /ObjStm /N 1 /First ${header.length} /Filter /FlateDecode /Length ${objStm.length} >>\nstream\n${objStm}\nendstream\nendobj\n`,
    )
    const xrefStmAt = length()
    const rows = [
      [2, 0, 4, 0], // object 3: in object stream 4, index 0
      [1, objStmAt >> 8, objStmAt & 0xff, 0],
      [1, xrefStmAt >> 8, xrefStmAt & 0xff, 0],
    ]
    const xrefData = deflateSync(upPredicted(rows)).toString('latin1')
    parts.push(
      `5 0 obj\n<< /Type /XRef /Size 6 /W [1 2 1] /Index [3 3] /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >> /Length ${xrefData.length} >>\nstream\n${xrefData}\nendstream\nendobj\n`,
    )
    const table = length()
    const entry = (offset: number): string => `${String(offset).padStart(10, '0')} 00000 n \n`
    parts.push(
      `xref\n0 3\n0000000000 65535 f \n${entry(catalogAt)}${entry(pagesAt)}trailer\n<< /Size 6 /Root 1 0 R /XRefStm ${xrefStmAt} >>\nstartxref\n${table}\n%%EOF\n`,
    )
    const bytes = new Uint8Array(Buffer.from(parts.join(''), 'latin1'))

    const doc = await PdfDocument.open(bytes)
    expect(doc.revisions).toHaveLength(1)
    expect(doc.revisions[0]?.sections[0]?.kind).toBe('hybrid')
    expect(doc.entry(3)).toEqual({ type: 2, stream: 4, index: 0 })
    const page = await doc.resolveDict(new PdfRef(3, 0))
    expect(page?.name('Type')).toBe('Page')
    expect((await doc.resolveDict((await doc.resolveDict(doc.trailer().get('Root')))?.get('Pages')))?.get('Count')).toBe(1)
    expect((await verifyPdf(bytes)).verdict).toBe('no-signature')
  })
})

describe.skipIf(!haveQpdf)('files rewritten by qpdf, then signed by libpdf', () => {
  let temp: Awaited<ReturnType<typeof tempDir>>
  let tsa: OpensslTsa
  let ec: Pki
  let anchors: string[]
  const signed: Record<string, Uint8Array> = {}

  beforeAll(async () => {
    temp = await tempDir()
    tsa = await startOpensslTsa()
    ec = await createPki(temp.dir, 'ec')
    anchors = [ec.root.certPem, tsa.rootPem]
    const input = await temp.file('base.pdf', await makeBasePdf())
    const variants: Record<string, string[]> = {
      objectStreams: ['--object-streams=generate'],
      linearized: ['--linearize'],
      linearizedObjectStreams: ['--linearize', '--object-streams=generate'],
    }
    for (const [name, args] of Object.entries(variants)) {
      const output = `${input}.${name}.pdf`
      await run('qpdf', [...args, input, output])
      const pdf = await PDF.load(new Uint8Array(await readFile(output)))
      signed[name] = (
        await pdf.sign({ signer: await signerFor(ec.leaf, [ec.root], 'ec'), level: 'B-T', timestampAuthority: new HttpTimestampAuthority(tsa.url) })
      ).bytes
    }
  })

  afterAll(async () => {
    await tsa?.close()
    await temp?.cleanup()
  })

  it.each(['objectStreams', 'linearized', 'linearizedObjectStreams'])('%s: verified', async (name) => {
    const result = await verifyPdf(signed[name] as Uint8Array, { trustAnchors: anchors })
    expect(result.verdict, result.problems.join('\n')).toBe('verified')
  })

  it('object streams: a later document timestamp (xref stream update) is allowed, a page edit is not', async () => {
    const bytes = signed.objectStreams as Uint8Array
    const withTimestamp = (await (await PDF.load(bytes)).addTimestamp({ timestampAuthority: new HttpTimestampAuthority(tsa.url) })).bytes
    expect((await verifyPdf(withTimestamp, { trustAnchors: anchors })).verdict).toBe('verified')
    const pdf = await PDF.load(bytes)
    pdf.getPage(0)?.drawRectangle({ x: 10, y: 10, width: 100, height: 100 })
    const edited = await pdf.save({ incremental: true })
    const result = await verifyPdf(edited, { trustAnchors: anchors })
    expect(result.verdict).toBe('mismatch')
    expect(result.signatures[0]?.disallowedChanges.join('\n')).toMatch(/page object/)
  })
})

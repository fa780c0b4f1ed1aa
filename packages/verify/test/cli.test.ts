import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { HttpTimestampAuthority, PDF } from '@libpdf/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOpensslTsa, type OpensslTsa } from '../../../test-support/openssl-tsa.ts'
import { publicKeyPin, type VerifyResult } from '../src/index.ts'
import { createPki, signerFor, type Pki } from './helpers/pki.ts'
import { indexOf, makeBasePdf, overwrite } from './helpers/pdf.ts'
import { tempDir } from './helpers/env.ts'

/* The signet-verify bin, run with node as a user would (no build step). */

const BIN = fileURLToPath(new URL('../bin/signet-verify.mjs', import.meta.url))

interface Outcome {
  code: number
  stdout: string
  stderr: string
}

function cli(...args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

let temp: Awaited<ReturnType<typeof tempDir>>
let tsa: OpensslTsa
let ec: Pki
const files: Record<string, string> = {}

beforeAll(async () => {
  temp = await tempDir()
  tsa = await startOpensslTsa()
  ec = await createPki(temp.dir, 'ec')
  const base = await makeBasePdf()
  const signer = await signerFor(ec.leaf, [ec.root], 'ec')
  const sealed = (await (await PDF.load(base)).sign({ signer, level: 'B-T', timestampAuthority: new HttpTimestampAuthority(tsa.url) })).bytes
  const untimed = (await (await PDF.load(base)).sign({ signer, level: 'B-B' })).bytes
  const at = indexOf(sealed, '/MediaBox [0 0 612') + '/MediaBox [0 0 61'.length
  files.sealed = await temp.file('sealed.pdf', sealed)
  files.untimed = await temp.file('untimed.pdf', untimed)
  files.tampered = await temp.file('tampered.pdf', overwrite(sealed, at, '3'))
  files.unsigned = await temp.file('unsigned.pdf', base)
  files.garbage = await temp.file('garbage.pdf', 'this is not a PDF')
  files.root = await temp.file('root.pem', ec.root.certPem)
  files.tsaRoot = tsa.rootFile
  files.bogusAnchor = await temp.file('bogus.pem', 'nothing to see')
})

afterAll(async () => {
  await tsa?.close()
  await temp?.cleanup()
})

describe('signet-verify', () => {
  it('exits with the code of each verdict', async () => {
    const pin = await publicKeyPin(ec.root.certPem)
    const runs = await Promise.all([
      cli(files.sealed as string, '--trust', files.root as string, '--trust', files.tsaRoot as string),
      cli(files.sealed as string, '--trust', pin, '--trust', files.tsaRoot as string),
      cli(files.sealed as string),
      cli(files.untimed as string, '--trust', files.root as string),
      cli(files.untimed as string, '--trust', files.root as string, '--now', '2100-01-01T00:00:00Z'),
      cli(files.tampered as string),
      cli(files.garbage as string),
      cli(files.unsigned as string),
    ])
    expect(runs.map((outcome) => outcome.code)).toEqual([0, 0, 3, 4, 5, 6, 7, 8])
    expect(runs[0]?.stdout).toMatch(/^Verdict: verified\n/)
    expect(runs[0]?.stdout).toMatch(/Signer: CN=Signet Test Seal, O=Signet Tests/)
    expect(runs[0]?.stdout).toMatch(/Proven time: .* by CN=Test Third-Party TSA, O=Test/)
    expect(runs[5]?.stdout).toMatch(/^Verdict: mismatch\n/)
    expect(runs[5]?.stdout).toMatch(/DIGEST MISMATCH/)
  })

  it('prints the VerifyResult with --json', async () => {
    const outcome = await cli(files.sealed as string, '--json', '--trust', files.root as string)
    expect(outcome.code).toBe(3)
    const result = JSON.parse(outcome.stdout) as VerifyResult
    expect(result.verdict).toBe('verified-untrusted-root')
    expect(result.fileSha256).toMatch(/^[0-9a-f]{64}$/)
    expect(result.signatures[0]).toMatchObject({
      kind: 'signature',
      subFilter: 'ETSI.CAdES.detached',
      digestMatches: true,
      chain: { trusted: true },
      timestamp: { trusted: false },
    })
  })

  it('exits 2 on usage errors and unreadable files', async () => {
    const runs = await Promise.all([
      cli(),
      cli(files.sealed as string, '--bogus'),
      cli('/nonexistent/file.pdf'),
      cli(files.sealed as string, '--trust', '/nonexistent/root.pem'),
      cli(files.sealed as string, '--trust', files.bogusAnchor as string),
      cli(files.sealed as string, '--trust', 'sha256/too-short'),
      cli(files.sealed as string, files.untimed as string),
    ])
    expect(runs.map((outcome) => outcome.code)).toEqual([2, 2, 2, 2, 2, 2, 2])
    expect(runs[0]?.stderr).toMatch(/usage: signet-verify/)
  })
})

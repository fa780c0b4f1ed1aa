import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { EXIT_CODES, verifyPdf, type SignatureReport, type VerifyResult } from './index.ts'

/**
 * signet-verify <file.pdf> [--json] [--trust <root.pem | sha256/pin>]...
 * The only Node-specific module of the package. Exit code per verdict (see README).
 */

const USAGE = `usage: signet-verify <file.pdf> [--json] [--trust <root.pem|cert.der|sha256/<base64>>]...

Verifies the signatures and timestamps of a PDF.
  --json           print the full result as JSON
  --trust <value>  trust anchor: a PEM/DER certificate file (a PEM file may hold several),
                   or a public-key pin sha256/<base64 of the SubjectPublicKeyInfo hash>; repeatable
  --now <iso-date> validation time for signatures without a proven time (default: now)

Exit codes: 0 verified, 3 verified-untrusted-root, 4 signed-untimed, 5 unverified,
            6 mismatch, 7 unsupported, 8 no-signature, 2 usage error or unreadable file`

export const USAGE_EXIT = 2

function describeSignature(report: SignatureReport, index: number): string[] {
  const title = report.kind === 'document-timestamp' ? 'Document timestamp' : 'Signature'
  const lines = [`${title} ${index + 1}${report.fieldName ? ` "${report.fieldName}"` : ''} (${report.subFilter || 'no SubFilter'}): ${report.verdict}`]
  if (report.signer) lines.push(`  ${report.kind === 'document-timestamp' ? 'TSA' : 'Signer'}: ${report.signer.subject}`)
  if (report.chain.subjects.length > 0)
    lines.push(
      `  Chain: ${report.chain.subjects.join(' <- ')} (${report.chain.valid ? 'valid' : 'INVALID'}, ${report.chain.trusted ? 'trusted' : 'not anchored'})`,
    )
  if (report.claimedSigningTime) lines.push(`  Claimed signing time: ${report.claimedSigningTime}`)
  if (report.timestamp) {
    const source = report.timestamp.source === 'document-timestamp' ? 'document timestamp' : 'signature timestamp'
    lines.push(
      `  Proven time: ${report.timestamp.time} by ${report.timestamp.tsaName ?? 'unknown TSA'} (${source}; ${report.timestamp.valid && report.timestamp.coversSignature ? 'valid' : 'INVALID'}, ${report.timestamp.trusted ? 'trusted' : 'not anchored'})`,
    )
  }
  const digest = report.digestMatches === true ? 'digest OK' : report.digestMatches === false ? 'DIGEST MISMATCH' : 'digest not checked'
  const signature = report.signatureValid === true ? 'signature OK' : report.signatureValid === false ? 'SIGNATURE INVALID' : 'signature not checked'
  lines.push(
    `  ${report.digestAlgorithm ?? 'unknown digest'}: ${digest}, ${signature}; covers ${report.coversWholeFile ? 'the whole file' : `bytes up to ${report.byteRange.length === 4 ? (report.byteRange[2] ?? 0) + (report.byteRange[3] ?? 0) : '?'} (later updates follow)`}`,
  )
  for (const problem of report.problems) lines.push(`  ! ${problem}`)
  for (const note of report.notes) lines.push(`  - ${note}`)
  return lines
}

export function formatHuman(result: VerifyResult, file: string): string {
  const lines = [`Verdict: ${result.verdict}`, `File: ${file}`, `SHA-256: ${result.fileSha256}`]
  if (result.verdict !== 'verified' && result.problems[0]) lines.push(`Reason: ${result.problems[0]}`)
  lines.push('')
  result.signatures.forEach((report, index) => lines.push(...describeSignature(report, index), ''))
  if (result.signatures.length === 0) for (const problem of result.problems.slice(1)) lines.push(`! ${problem}`)
  return `${lines.join('\n').trimEnd()}\n`
}

export async function main(argv: string[]): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        trust: { type: 'string', multiple: true, default: [] },
        now: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`)
    return USAGE_EXIT
  }
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const [file, ...extra] = parsed.positionals
  if (!file || extra.length > 0) {
    process.stderr.write(`${USAGE}\n`)
    return USAGE_EXIT
  }
  let now: Date | undefined
  if (parsed.values.now !== undefined) {
    now = new Date(parsed.values.now)
    if (Number.isNaN(now.getTime())) {
      process.stderr.write(`--now: not a date: ${parsed.values.now}\n`)
      return USAGE_EXIT
    }
  }
  const trustAnchors: (string | Uint8Array)[] = []
  for (const value of parsed.values.trust) {
    if (value.startsWith('sha256/')) {
      if (!/^sha256\/[A-Za-z0-9+/]{43}=$/.test(value)) {
        process.stderr.write(`--trust: malformed pin ${value}\n`)
        return USAGE_EXIT
      }
      trustAnchors.push(value)
      continue
    }
    try {
      trustAnchors.push(new Uint8Array(await readFile(value)))
    } catch (error) {
      process.stderr.write(`--trust: cannot read ${value}: ${error instanceof Error ? error.message : String(error)}\n`)
      return USAGE_EXIT
    }
  }
  let bytes: Uint8Array
  try {
    bytes = new Uint8Array(await readFile(file))
  } catch (error) {
    process.stderr.write(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`)
    return USAGE_EXIT
  }
  const result = await verifyPdf(bytes, { trustAnchors, ...(now ? { now } : {}) })
  // An unreadable trust anchor is a usage error: it would silently trust nothing.
  const anchorProblem = result.problems.find((problem) => /^trust anchor #\d+ ignored/.test(problem))
  if (anchorProblem) {
    process.stderr.write(`--trust: ${anchorProblem}\n`)
    return USAGE_EXIT
  }
  process.stdout.write(parsed.values.json ? `${JSON.stringify(result, null, 2)}\n` : formatHuman(result, file))
  return EXIT_CODES[result.verdict]
}

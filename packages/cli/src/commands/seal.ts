import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { connect } from '../client.ts'
import { CliError, EXIT, usageError } from '../exit-codes.ts'
import { onInterrupt } from '../interrupt.ts'
import { print, printJson } from '../output.ts'

/** The API's limit on a PDF to seal (POST /api/v1/seals). */
const MAX_PDF_BYTES = 25 * 1024 * 1024
/** A pending seal waits for a time-stamp authority; the server retries it in the background. */
const PENDING_WAIT_MS = 120_000

function readPdf(file: string): Uint8Array {
  let size: number
  try {
    size = statSync(file).size
  } catch {
    throw usageError(`Cannot read ${file}: no such file.`)
  }
  if (size > MAX_PDF_BYTES) throw usageError(`${file} is ${(size / 1024 / 1024).toFixed(1)} MB: Signet seals PDFs of at most 25 MB.`)
  const bytes = new Uint8Array(readFileSync(file))
  if (Buffer.from(bytes.subarray(0, 1024)).indexOf('%PDF-') === -1) throw usageError(`${file} is not a PDF (no %PDF- header).`)
  return bytes
}

export interface SealCommandOptions {
  title?: string
  json?: boolean
}

export async function seal(file: string, options: SealCommandOptions): Promise<number> {
  const pdf = readPdf(file)
  const { signet } = connect()
  let sealed = await signet.seals.create(pdf, { filename: basename(file), ...(options.title ? { title: options.title } : {}) })
  const interrupted = onInterrupt()
  const deadline = Date.now() + PENDING_WAIT_MS
  while (sealed.seal_status === 'pending') {
    if (Date.now() > deadline)
      throw new CliError(`The seal ${sealed.id} is still waiting for a time-stamp authority; the server keeps trying: \`signet download ${sealed.id}\` later.`)
    if (await interrupted.sleep(2000)) return EXIT.interrupted
    sealed = await signet.seals.get(sealed.id)
  }
  if (sealed.seal_status === 'failed') throw new CliError(`The seal ${sealed.id} failed: ${sealed.last_error ?? 'no reason given'} (the operator is alerted).`)

  const stem = file.replace(/\.pdf$/i, '')
  const sealedPath = `${stem}.sealed.pdf`
  const badgePath = `${stem}.badge.png`
  writeFileSync(sealedPath, await signet.documents.signedFile(sealed.id))
  // The SDK has no badge method: the route is a plain download.
  writeFileSync(badgePath, new Uint8Array(await (await signet.request('GET', `/documents/${sealed.id}/badge`)).arrayBuffer()))
  if (options.json) printJson({ ...sealed, sealed_file: sealedPath, badge_file: badgePath })
  else
    print(
      `Sealed ${file} at ${sealed.sealed_at ?? '?'} (${sealed.timestamp_authority ?? 'time-stamp authority'}).\n  ${sealedPath}\n  ${badgePath}\n  Verify: ${sealed.verify_url}`,
    )
  return 0
}

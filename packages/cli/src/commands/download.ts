import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { connect } from '../client.ts'
import { CliError, EXIT } from '../exit-codes.ts'
import { print, printJson } from '../output.ts'

export interface DownloadOptions {
  output?: string
  json?: boolean
}

export async function download(id: string, options: DownloadOptions): Promise<number> {
  const { signet } = connect()
  const pdf = await signet.documents.signedFile(id)
  if (options.output === '-') {
    process.stdout.write(pdf)
    return 0
  }
  const path = resolve(options.output ?? `${id}.pdf`)
  try {
    writeFileSync(path, pdf)
  } catch (error) {
    throw new CliError(`Cannot write ${path}: ${error instanceof Error ? error.message : String(error)} — choose another place with -o <file>.`, EXIT.usage)
  }
  if (options.json) printJson({ id, file: path, bytes: pdf.byteLength })
  else print(`Saved the signed PDF to ${path} (${pdf.byteLength.toLocaleString('en')} bytes).`)
  return 0
}

import { connect } from '../client.ts'
import { print, printJson } from '../output.ts'

export async function voidDocument(id: string, options: { json?: boolean }): Promise<number> {
  const { signet } = connect()
  await signet.documents.void(id)
  if (options.json) printJson({ id, status: 'voided' })
  else print(`Voided ${id}: its signing links no longer work.`)
  return 0
}

import { connect } from '../client.ts'
import { usageError } from '../exit-codes.ts'
import { print, printJson } from '../output.ts'

export const EVENT_TYPES = ['document.viewed', 'document.signed', 'document.completed', 'document.declined'] as const

export async function trigger(event: string, options: { json?: boolean }): Promise<number> {
  if (!(EVENT_TYPES as readonly string[]).includes(event)) throw usageError(`Unknown event "${event}": use one of ${EVENT_TYPES.join(', ')}.`)
  const { signet } = connect()
  const response = await signet.request('POST', '/events/trigger', { body: JSON.stringify({ event }), headers: { 'content-type': 'application/json' } })
  const triggered = (await response.json()) as { id: string; event: string }
  if (options.json) printJson(triggered)
  else
    print(
      `Triggered ${triggered.event} (${triggered.id}): running \`signet listen\` sessions of this workspace forward it; registered endpoints do not get it.`,
    )
  return 0
}

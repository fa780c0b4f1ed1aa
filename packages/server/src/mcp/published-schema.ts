import type { TObject } from 'typebox'
import { UTC_DATE_TIME } from '../lib/utc-date-time.ts'

type JsonSchema = { [key: string]: unknown }

/**
 * A tool schema as clients receive it: plain JSON Schema that any validator understands.
 * Our own `utc-date-time` format (validated server-side by the same compiler as REST) is
 * published as the equivalent pattern, since a client's validator would not know the name.
 */
export function publishedSchema(schema: TObject): { type: 'object'; [key: string]: unknown } {
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite)
    if (typeof node !== 'object' || node === null) return node
    const entries = Object.entries(node as JsonSchema).map(([key, value]) => [key, rewrite(value)] as const)
    const copy: JsonSchema = Object.fromEntries(entries)
    if (copy.format === 'utc-date-time') {
      delete copy.format
      copy.pattern = `^$|${UTC_DATE_TIME.source.slice(1)}`
    }
    return copy
  }
  return { ...(rewrite(schema) as JsonSchema), type: 'object' }
}

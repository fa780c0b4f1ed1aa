/**
 * What the endpoint needs to know of a JSON-RPC body before the SDK reads it: its messages,
 * which of them are tool calls (each counted against a rate limit), and whether it is the one
 * kind of body that may be large.
 */

/**
 * The most messages one body may batch (clients of protocol 2025-03-26 may batch; later
 * versions do not). Each is counted against a rate limit; a batch of 100 tools/list once
 * answered 41 MB to a 96 KB request.
 */
export const MAX_BATCH_MESSAGES = 10

/** JSON-RPC's code for a request that is not a valid Request object. */
export const INVALID_REQUEST = -32600

/** The tool whose call carries a PDF in base64, the only body that may exceed BODY_LIMIT. */
const SEAL_TOOL = 'seal_document'

export interface JsonRpcMessage {
  id?: string | number | null
  method?: unknown
  params?: unknown
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The messages of a body: one JSON-RPC message, or each entry of a batch (entries that are no object too: they count). */
export const messagesOf = (body: unknown): unknown[] => (Array.isArray(body) ? body : [body])

/** A tools/call request (counted against the agent-tools limit; every other message against agent-protocol). */
export const isToolCall = (message: unknown): message is JsonRpcMessage => isObject(message) && message.method === 'tools/call'

/** The id to answer a refusal of the whole body with: the message's own, when there is one message. */
export const replyIdOf = (messages: unknown[]): string | number | null => {
  const [only] = messages
  if (messages.length !== 1 || !isObject(only)) return null
  return typeof only.id === 'string' || typeof only.id === 'number' ? only.id : null
}

/** One tools/call of seal_document, not in a batch: the only body that may be larger than BODY_LIMIT. */
export const isSealCall = (body: unknown): boolean => isToolCall(body) && isObject(body.params) && body.params.name === SEAL_TOOL

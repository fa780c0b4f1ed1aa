import { ErrorCode, type RequestId } from '@modelcontextprotocol/sdk/types.js'

/*
 * A request the transport may answer without the SDK's Server (json-transport.ts, DirectMethod):
 * one that the Server's checks would let through unchanged, answered with the bytes the Server's
 * response would have had. Anything else goes to the Server, which validates it and answers.
 */

/** One JSON-RPC request as the SDK's JSONRPCRequestSchema takes it, unchanged (the body itself). */
export interface PlainRequest {
  id: RequestId
  method: string
  params: Record<string, unknown>
}

/** A JSON object as JSON.parse builds it (zod's object and record schemas take exactly these). */
export const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * The body as one request with params, when the SDK's strict JSONRPCRequestSchema would take it
 * as it is: no key but jsonrpc "2.0", an id that is a string or a safe integer (RequestIdSchema),
 * a string method and params an object without `_meta` (whose progress token and related task
 * the Server reads). Otherwise undefined, and the body goes to the Server.
 */
export function plainRequestOf(body: unknown): PlainRequest | undefined {
  if (!isPlainObject(body)) return undefined
  let keys = 0
  for (const key in body) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined
    keys++
  }
  const { jsonrpc, id, method, params } = body
  if (keys !== 4 || jsonrpc !== '2.0' || typeof method !== 'string' || !isPlainObject(params) || '_meta' in params) return undefined
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined
  return body as unknown as PlainRequest
}

/** The Server's response to a request whose handler's result, as the Server validated it, is `resultJson`. */
export const resultBody = (id: RequestId, resultJson: string): string => `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`

/**
 * The Server's response to a request whose handler threw `error` (the SDK's Protocol: the error's
 * own code when it is an integer, else Internal error; its message; its data when it has some).
 */
export function errorBody(id: RequestId, error: unknown): string {
  const { code, message, data } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown; data?: unknown }
  const described = {
    code: Number.isSafeInteger(code) ? code : ErrorCode.InternalError,
    message: message ?? 'Internal error',
    ...(data !== undefined && { data }),
  }
  return JSON.stringify({ jsonrpc: '2.0', id, error: described })
}

import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js'
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  CancelledNotificationSchema,
  isInitializeRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js'
import { errorBody, plainRequestOf, resultBody, type PlainRequest } from './direct-request.ts'

/*
 * The MCP endpoint's transport: one SDK Server per app answers every HTTP request through it.
 * The SDK's own Streamable HTTP transport serves one client (a stateless one, one request), so
 * the endpoint used to build a Server, a transport, a web Request and a web Response per
 * request; this adapter answers the same POST with the same statuses and bodies (the SDK's
 * WebStandardStreamableHTTPServerTransport in stateless mode with enableJsonResponse, 1.32.2:
 * handlePostRequest, validateProtocolVersion, send, createJsonErrorResponse), from the headers
 * and the body Fastify has parsed already.
 *
 * A body that is one tools/call the Server would take as it is skips the Server (DirectMethod):
 * the same answer, without the Server's validation and dispatch around the tool.
 *
 * Each HTTP request is an exchange. The Server keys what it tracks of a request (its abort
 * controller, which notifications/cancelled finds) by the JSON-RPC id, and two clients may
 * both send id 1 at once: so each request of an exchange goes to the Server under an id unique
 * in the process, and its response goes back to the client under the client's own id.
 */

/** A POST's answer: its status, and its JSON body (Content-Type application/json), or no body. */
export interface JsonRpcAnswer {
  status: number
  body: string | undefined
}

/** The request headers the answer depends on, as Node's http module gives them. */
export interface JsonRpcHeaders {
  accept?: string | string[] | undefined
  'content-type'?: string | string[] | undefined
  'mcp-protocol-version'?: string | string[] | undefined
}

/** What the Server's handlers get to tell which client sent a request (RequestHandlerExtra has it). */
export interface HandlerExtra {
  requestId: RequestId
}

/** One response per distinct client id, as the SDK's transport collected them (by id, first appearance first). */
interface Slot {
  clientId: RequestId
  response: JSONRPCResultResponse | JSONRPCErrorResponse | undefined
  /** Requests of the exchange under this id (more than one only when a batch repeats an id). */
  requests: number
  /** Those of them cancelled by a notifications/cancelled of the same exchange: the Server never answers those. */
  cancelled: number
}

/**
 * One HTTP request's messages. Its slots and routes are arrays, searched by id: a body holds a
 * few messages (at most MAX_BATCH_SIZE), and === on ids is the Map's SameValueZero here.
 */
interface Exchange<Context> {
  context: Context
  slots: Slot[]
  /** Slots still waiting for a response. */
  waiting: number
  /** True while the body's messages are being handed to the Server: nothing is answered before all are. */
  delivering: boolean
  finished: boolean
  routes: Route<Context>[]
  resolve(answer: JsonRpcAnswer): void
}

/** A request of an exchange, under its id in the process. */
interface Route<Context> {
  id: number
  exchange: Exchange<Context>
  /** The request as the Server gets it, under `id`. */
  request: JSONRPCRequest
  slot: Slot
  answered: boolean
  cancelled: boolean
}

/** The SDK transport's refusal of a whole body (its createJsonErrorResponse). */
function refusal(status: number, code: number, message: string, data?: string): JsonRpcAnswer {
  const error = data === undefined ? { code, message } : { code, message, data }
  return { status, body: JSON.stringify({ jsonrpc: '2.0', error, id: null }) }
}

/** No body: a body of notifications and responses only, and (here only) a body whose every request was cancelled. */
const ACCEPTED: JsonRpcAnswer = Object.freeze({ status: 202, body: undefined })
const BAD_BATCH_SIZE = `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`
const UNSUPPORTED_VERSION = (version: string) =>
  `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`

/**
 * A header as the SDK's transport read it from a web Headers object: a string header with
 * leading and trailing HTTP whitespace removed (as Headers.set does), and no other kind.
 */
function headerOf(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined
  return isHttpWhitespace(value.charCodeAt(0)) || isHttpWhitespace(value.charCodeAt(value.length - 1)) ? value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '') : value
}
const isHttpWhitespace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d

/** A message as the SDK's JSONRPCMessageSchema validates it (its output), or undefined for one it refuses. */
function validMessage(raw: unknown): JSONRPCMessage | undefined {
  const parsed = JSONRPCMessageSchema.safeParse(raw)
  return parsed.success ? parsed.data : undefined
}

/**
 * Whether a message that passed JSONRPCMessageSchema is a request: its schemas are strict, so a
 * request is the only kind with both `method` and `id` (a notification has no id, a response no
 * method). The SDK's transport asked isJSONRPCRequest, which is the same answer for such a message.
 */
const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => 'method' in message && 'id' in message

/**
 * The SDK's isInitializeRequest, which the transport applied to every message: a request (or a
 * notification) named initialize with valid params. The method is looked at first, because the
 * schema's refusal of any other message costs more than the rest of the request's handling here.
 */
const isInitialize = (message: JSONRPCMessage): boolean => 'method' in message && message.method === 'initialize' && isInitializeRequest(message)

const isSettled = (slot: Slot): boolean => slot.response !== undefined || slot.cancelled === slot.requests

/**
 * A method the transport answers itself, without the Server, when a body is one request of it:
 * `answer` takes the request's params and either declines them (undefined: the request goes to
 * the Server, which validates it and answers) or answers with the JSON of the result the Server's
 * answer would hold, for params the Server's checks would hand to its handler unchanged. What the
 * Server does per request around its handler (eight zod parses, two of them failing type guards,
 * an abort controller, a chain of promises) cost about a quarter of an MCP call's CPU
 * (docs/benchmarks.md, "MCP call cost (issue 21)").
 */
export interface DirectMethod<Context> {
  method: string
  /** The result's JSON text, or undefined to leave the request to the Server; a rejection is answered as the Server answers a handler's throw. */
  answer(params: Record<string, unknown>, context: Context): Promise<string> | undefined
}

/**
 * A Transport for one SDK Server shared by every HTTP request of the process: `answer` takes a
 * POST's headers and parsed body and the caller's context, and resolves to the HTTP answer once
 * the Server has answered every request of the body. The Server's handlers find the context of
 * the request they answer with `contextOf(extra)`.
 */
export class JsonTransport<Context> implements Transport {
  onmessage?: Transport['onmessage']
  onclose?: () => void
  onerror?: (error: Error) => void
  /** Stateless: no session. */
  readonly sessionId: undefined = undefined

  #started = false
  #closed = false
  /** The last id given to a request in the process (each request takes the next one). */
  #lastId = 0
  /** The requests handed to the Server and not yet answered by it, by their id in the process. */
  readonly #routes = new Map<number, Route<Context>>()
  /** The exchanges not yet answered (for close()). */
  readonly #exchanges = new Set<Exchange<Context>>()

  /** The method answered without the Server, if any. */
  readonly #direct: DirectMethod<Context> | undefined

  constructor(direct?: DirectMethod<Context>) {
    this.#direct = direct
  }

  /** Requests handed to the Server and not answered yet (a check that nothing is kept, for the tests). */
  get pendingRequests(): number {
    return this.#routes.size
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('JsonTransport already started')
    this.#started = true
  }

  /**
   * The Server's responses go back to their exchange, under the client's id. Anything else the
   * Server sends (a notification or a request related to a request being handled) has nowhere
   * to go in a JSON answer: the SDK's transport in JSON mode dropped it too.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if ('result' in message || 'error' in message) this.#respond(message)
  }

  /** Exchanges still waiting are answered as the SDK's transport answered a request after its close(). */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const exchange of this.#exchanges) this.#finish(exchange, refusal(404, -32001, 'Session not found'))
    this.#routes.clear()
    this.onclose?.()
  }

  /**
   * The context of the exchange whose request a handler answers (its extra's requestId is the id
   * in the process). A request no longer waited for (cancelled by its client) has none.
   */
  contextOf(extra: HandlerExtra): Context {
    const route = typeof extra.requestId === 'number' ? this.#routes.get(extra.requestId) : undefined
    if (!route) throw new Error(`The request ${String(extra.requestId)} is not waited for (cancelled or answered).`)
    return route.exchange.context
  }

  /**
   * A POST of JSON-RPC messages: refused as a whole as the SDK's transport refused it, or handed
   * to the Server message by message and answered once every request has its response.
   * `body` is the parsed JSON, undefined when the request had none.
   */
  answer(headers: JsonRpcHeaders, body: unknown, context: Context): Promise<JsonRpcAnswer> {
    if (!this.#started) throw new Error('JsonTransport is not connected to a Server')
    const refused = this.#refusal(headers, body)
    if (refused) return Promise.resolve(refused)
    const request = this.#direct ? plainRequestOf(body) : undefined
    if (this.#direct && request?.method === this.#direct.method) {
      const direct = this.#answerDirectly(this.#direct, request, headers, context)
      if (direct) return direct
    }
    const messages = Array.isArray(body) ? (body as unknown[]).map(validMessage) : [validMessage(body)]
    if (!messages.every((message) => message !== undefined)) return Promise.resolve(refusal(400, -32700, 'Parse error: Invalid JSON-RPC message'))
    const initializing = messages.some(isInitialize)
    if (initializing && messages.length > 1) return Promise.resolve(refusal(400, -32600, 'Invalid Request: Only one initialization request is allowed'))
    if (!initializing) {
      const version = headerOf(headers['mcp-protocol-version'])
      if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return Promise.resolve(refusal(400, -32000, UNSUPPORTED_VERSION(version)))
    }
    if (!messages.some(isRequest)) {
      this.#deliver(messages, undefined)
      return Promise.resolve(ACCEPTED)
    }
    return new Promise<JsonRpcAnswer>((resolve) => {
      const exchange: Exchange<Context> = { context, slots: [], waiting: 0, delivering: true, finished: false, routes: [], resolve }
      this.#exchanges.add(exchange)
      try {
        this.#deliver(messages, exchange)
      } catch (error) {
        // As the SDK's transport answered a throw while it handed the messages over.
        this.#finish(exchange, refusal(400, -32700, 'Parse error', String(error)))
        return
      }
      exchange.delivering = false
      if (exchange.waiting === 0) this.#finish(exchange)
    })
  }

  /**
   * One request of the direct method, answered as the Server would have answered it: after the
   * protocol version check, with the handler's result or its error, under the client's id. It is
   * an exchange, so that close() answers it as it answers those waiting for the Server. Undefined
   * when the method declines the params.
   */
  #answerDirectly(direct: DirectMethod<Context>, request: PlainRequest, headers: JsonRpcHeaders, context: Context): Promise<JsonRpcAnswer> | undefined {
    const version = headerOf(headers['mcp-protocol-version'])
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return Promise.resolve(refusal(400, -32000, UNSUPPORTED_VERSION(version)))
    let pending: Promise<string> | undefined
    try {
      pending = direct.answer(request.params, context)
    } catch (error) {
      return Promise.resolve({ status: 200, body: errorBody(request.id, error) })
    }
    if (!pending) return undefined
    const result = pending
    return new Promise<JsonRpcAnswer>((resolve) => {
      const exchange: Exchange<Context> = { context, slots: [], waiting: 1, delivering: false, finished: false, routes: [], resolve }
      this.#exchanges.add(exchange)
      const settle = (body: string) => {
        if (exchange.finished) return
        exchange.finished = true
        this.#exchanges.delete(exchange)
        resolve({ status: 200, body })
      }
      result.then(
        (resultJson) => settle(resultBody(request.id, resultJson)),
        (error: unknown) => settle(errorBody(request.id, error)),
      )
    })
  }

  /** The SDK transport's refusals of a POST for its headers or its body as a whole, in its order. */
  #refusal(headers: JsonRpcHeaders, body: unknown): JsonRpcAnswer | undefined {
    if (this.#closed) return refusal(404, -32001, 'Session not found')
    // Accept is a list, so the SDK's substring check is the rule; Content-Type is a parsed media type.
    const accept = headerOf(headers.accept)
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return refusal(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream')
    }
    if (!isJsonContentType(headerOf(headers['content-type']))) {
      return refusal(415, -32000, 'Unsupported Media Type: Content-Type must be application/json')
    }
    // Given no parsed body, the SDK's transport read the body itself, and an empty body is not JSON.
    if (body === undefined) return refusal(400, -32700, 'Parse error: Invalid JSON')
    if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) return refusal(400, -32600, BAD_BATCH_SIZE)
    return undefined
  }

  /**
   * Hands a body's messages to the Server in their order, once every request has its id in the
   * process (a notifications/cancelled may come before the request it names, as the SDK's
   * transport allowed). Requests go under their new id. A notifications/cancelled goes only when
   * it names a request of the same exchange, under that request's new id, so that no client can
   * cancel another's request. Responses from the client are dropped: the Server sends no requests.
   */
  #deliver(messages: JSONRPCMessage[], exchange: Exchange<Context> | undefined): void {
    const onmessage = this.onmessage
    if (!onmessage) throw new Error('JsonTransport is not connected to a Server')
    if (exchange) {
      for (const message of messages) if (isRequest(message)) this.#route(message, exchange)
    }
    let next = 0
    for (const message of messages) {
      if (isRequest(message)) {
        const route = exchange?.routes[next++]
        if (route) onmessage(route.request)
      } else if ('method' in message) {
        const notification = message.method === 'notifications/cancelled' ? this.#cancellation(message, exchange) : message
        if (notification) onmessage(notification)
      }
    }
  }

  /** A request of an exchange under a new id: the Server's answer to it goes to the exchange's slot for the client's id. */
  #route(message: JSONRPCRequest, exchange: Exchange<Context>): void {
    const id = ++this.#lastId
    let slot = exchange.slots.find((candidate) => candidate.clientId === message.id)
    if (!slot) {
      slot = { clientId: message.id, response: undefined, requests: 0, cancelled: 0 }
      exchange.slots.push(slot)
      exchange.waiting++
    }
    slot.requests++
    const route: Route<Context> = { id, exchange, request: { ...message, id }, slot, answered: false, cancelled: false }
    this.#routes.set(id, route)
    exchange.routes.push(route)
  }

  /**
   * A client's notifications/cancelled, under the new id of the request it names, when that is
   * a request of its own exchange; otherwise nothing. The SDK's Server ignores a cancellation
   * that names no id or a falsy one (0, "") and one its schema refuses: those stay ignored. The
   * request it cancels is no longer waited for: the Server aborts it and never answers it (a
   * request it answered already, such as an unknown method, keeps its answer).
   */
  #cancellation(message: JSONRPCNotification, exchange: Exchange<Context> | undefined): JSONRPCNotification | undefined {
    const params = message.params
    const named = params?.requestId
    if (!exchange || !named) return undefined
    // When a batch repeats an id, the last request under it (the one the Server's map of requests by id held).
    const route = exchange.routes.findLast((candidate) => candidate.slot.clientId === named)
    if (!route || !CancelledNotificationSchema.safeParse(message).success) return undefined
    if (!route.cancelled && !route.answered) {
      const wasSettled = isSettled(route.slot)
      route.cancelled = true
      route.slot.cancelled++
      if (!wasSettled && isSettled(route.slot)) exchange.waiting--
    }
    return { ...message, params: { ...params, requestId: route.id } }
  }

  /** A response of the Server: its exchange's answer for the request's client id; the exchange is answered once none waits. */
  #respond(message: JSONRPCResultResponse | JSONRPCErrorResponse): void {
    const id = message.id
    const route = typeof id === 'number' ? this.#routes.get(id) : undefined
    if (!route) return
    this.#routes.delete(route.id)
    route.answered = true
    const { exchange, slot } = route
    // A repeated id's later answer, after the exchange was answered: the SDK's transport dropped it too.
    if (exchange.finished) return
    const wasSettled = isSettled(slot)
    // While the exchange waits, a repeated id's later answer replaces the earlier one, as in the SDK's transport.
    slot.response = { ...message, id: slot.clientId }
    if (!wasSettled) exchange.waiting--
    if (exchange.waiting === 0 && !exchange.delivering) this.#finish(exchange)
  }

  /**
   * Answers an exchange: with `refusal`, or with its responses in the order of their ids' first
   * appearance, one object for one, an array for more (as the SDK's transport did), no body when
   * the client cancelled every request (the SDK's transport never answered such a body).
   */
  #finish(exchange: Exchange<Context>, refused?: JsonRpcAnswer): void {
    if (exchange.finished) return
    exchange.finished = true
    this.#exchanges.delete(exchange)
    // The requests that will never be answered: cancelled ones, and any at all of a refused exchange.
    for (const route of exchange.routes) {
      if (!route.answered && (route.cancelled || refused)) this.#routes.delete(route.id)
    }
    if (refused) return exchange.resolve(refused)
    const responses: (JSONRPCResultResponse | JSONRPCErrorResponse)[] = []
    for (const slot of exchange.slots) if (slot.response) responses.push(slot.response)
    if (responses.length === 0) return exchange.resolve(ACCEPTED)
    exchange.resolve({ status: 200, body: JSON.stringify(responses.length === 1 ? responses[0] : responses) })
  }
}

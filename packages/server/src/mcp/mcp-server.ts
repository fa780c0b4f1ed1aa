import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, RequestSchema, type CallToolRequest } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { isPlainObject } from './direct-request.ts'
import { JsonTransport, type DirectMethod } from './json-transport.ts'
import { callTool, callToolJson, toolsFor, type Toolbox } from './toolbox.ts'
import type { ToolContext } from './tool.ts'

export const INSTRUCTIONS =
  'Signet sends PDF templates for e-signature and seals finished PDFs. To collect signatures: list_templates, then create_and_send_document ' +
  '(each signer signs through an e-mailed link; you cannot sign for them), then get_document_status until completed, then get_signed_file. ' +
  'To certify a finished PDF without signatures: seal_document. get_usage tells what the plan still allows.'

/**
 * tools/call with any params, as the SDK's first parse sees it. The SDK's own tools/call wrapper
 * then checks the params and answers a malformed call (no name, `arguments` null or an array)
 * with -32602 Invalid params; registered with the strict schema, that first parse would throw
 * before the wrapper runs and the client would get -32603 Internal error for its own mistake.
 */
const AnyToolCall = RequestSchema.extend({ method: CallToolRequestSchema.shape.method })

/**
 * The SDK builds a JSON Schema validator (a new Ajv, a few milliseconds) for every Server unless
 * it is given one. It serves elicitation only, which we never use, so one instance serves every
 * Server of the process (a test process builds many apps).
 */
const sharedValidator = new AjvJsonSchemaValidator()

/**
 * tools/call answered without the Server when its params are what the Server would hand our
 * handler unchanged: a string name, arguments absent or an object, nothing else (`task` and
 * `_meta` are the Server's business). The Server would call callTool with the same name and
 * arguments, validate its result against CallToolResultSchema and send what that schema's parse
 * gives back, which for callTool's results is the result itself, key for key and in the same
 * order; callToolJson is that result's JSON (test/mcp-transport.test.ts compares both paths'
 * bytes). Any other params go to the Server, which answers them (Invalid params, a task refused).
 */
function directToolCall(toolbox: Toolbox): DirectMethod<ToolContext> {
  return {
    method: 'tools/call',
    answer(params, context) {
      for (const key in params) if (key !== 'name' && key !== 'arguments') return undefined
      const { name, arguments: args } = params
      if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined
      return callToolJson(toolbox, context, name, args)
    },
  }
}

/**
 * The MCP server of an app: one SDK Server (initialize and version negotiation, ping,
 * tools/list, tools/call, the JSON-RPC errors) for every request, connected once to the
 * JsonTransport through which the HTTP layer hands it each request with its caller (whose
 * identity and scopes the HTTP layer established). Each handler takes its caller from the
 * transport by the id of the request it answers, so no request sees another's caller. A lone
 * tools/call the transport answers itself, with the same handler (directToolCall).
 */
export async function startMcpServer(toolbox: Toolbox, version: string): Promise<JsonTransport<ToolContext>> {
  const transport = new JsonTransport<ToolContext>(directToolCall(toolbox))
  const server = new Server(
    { name: 'signet', title: 'Signet', version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: sharedValidator },
  )
  server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => ({ tools: toolsFor(toolbox, transport.contextOf(extra).actor) }))
  server.setRequestHandler(AnyToolCall, (request, extra) => {
    // Cancelled by a notifications/cancelled of the same body: the Server drops the result of a
    // cancelled request, so the call is not run at all (its side effects would be unasked for).
    if (extra.signal.aborted) throw new McpError(ErrorCode.ConnectionClosed, 'Request was cancelled')
    // The SDK's tools/call wrapper has validated the call against CallToolRequestSchema before this runs.
    const { name, arguments: args } = (request as CallToolRequest).params
    return callTool(toolbox, transport.contextOf(extra), name, args)
  })
  await server.connect(transport)
  return transport
}

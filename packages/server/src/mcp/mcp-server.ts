import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema, RequestSchema, type CallToolRequest } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { callTool, toolsFor, type Toolbox } from './toolbox.ts'
import type { ToolContext } from './tool.ts'

const INSTRUCTIONS =
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
 * The SDK builds a JSON Schema validator (a new Ajv) for every Server unless it is given one;
 * with a server per request that was a third of the endpoint's CPU time. We never ask the client
 * for input (elicitation, its only use), so one shared instance serves every request.
 */
const sharedValidator = new AjvJsonSchemaValidator()

/**
 * An MCP server for one HTTP request (the endpoint is stateless): it answers initialize,
 * tools/list and tools/call for the given caller, whose identity and scopes the HTTP layer established.
 */
export function mcpServerFor(toolbox: Toolbox, context: ToolContext, version: string): Server {
  const server = new Server(
    { name: 'signet', title: 'Signet', version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: sharedValidator },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolsFor(toolbox, context.actor) }))
  server.setRequestHandler(AnyToolCall, (request) => {
    // The SDK's tools/call wrapper has validated the call against CallToolRequestSchema before this runs.
    const { name, arguments: args } = (request as CallToolRequest).params
    return callTool(toolbox, context, name, args)
  })
  return server
}

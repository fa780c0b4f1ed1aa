import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { callTool, type Toolbox } from './toolbox.ts'
import type { ToolContext } from './tool.ts'

const INSTRUCTIONS =
  'Signet sends PDF templates for e-signature and seals finished PDFs. To collect signatures: list_templates, then create_and_send_document ' +
  '(each signer signs through an e-mailed link; you cannot sign for them), then get_document_status until completed, then get_signed_file. ' +
  'To certify a finished PDF without signatures: seal_document. get_usage tells what the plan still allows.'

/**
 * An MCP server for one HTTP request (the endpoint is stateless): it answers initialize,
 * tools/list and tools/call for the given caller, whose identity the HTTP layer established.
 */
export function mcpServerFor(toolbox: Toolbox, context: ToolContext, version: string): Server {
  const server = new Server({ name: 'signet', title: 'Signet', version }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolbox.listing }))
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(toolbox, context, request.params.name, request.params.arguments))
  return server
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { expect } from 'vitest'
import type { TestServer } from './test-server.ts'

/** The ten agent tools, in the order tools/list gives them. */
export const TOOL_NAMES = [
  'list_templates',
  'create_and_send_document',
  'get_document_status',
  'list_documents',
  'void_document',
  'get_signed_file',
  'seal_document',
  'get_certificate_file',
  'get_badge_image',
  'get_usage',
]

/** An official MCP SDK client connected to the server's /api/mcp with an API key, as an agent host would (it has listed the tools). */
export async function connectAgent(server: TestServer, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'signet-tests', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  })
  await client.connect(transport)
  // As agent hosts do: the listing also makes the SDK check every result against the tool's outputSchema.
  await client.listTools()
  return client
}

/** Calls a tool that must succeed; returns its structured result (the SDK has checked it against the outputSchema). */
export async function callOk<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ structured: T; result: CallToolResult }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
  const text = result.content[0]
  expect(text?.type).toBe('text')
  // The same JSON as a text item, for clients that ignore structuredContent.
  expect(JSON.parse((text as { text: string }).text)).toEqual(result.structuredContent)
  return { structured: result.structuredContent as T, result }
}

/** Calls a tool that must fail as a tool error (isError, one text item); returns that text. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  expect(result.isError).toBe(true)
  expect(result.structuredContent).toBeUndefined()
  expect(result.content).toHaveLength(1)
  const [item] = result.content
  expect(item?.type).toBe('text')
  return (item as { text: string }).text
}

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
export async function callOk<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ structured: T; result: CallToolResult }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
  const text = result.content[0]
  expect(text?.type).toBe('text')
  // The same JSON as a text item, for clients that ignore structuredContent.
  expect(JSON.parse((text as { text: string }).text)).toEqual(result.structuredContent)
  return { structured: result.structuredContent as T, result }
}

/** A tool error's structured data: the REST error body. */
export interface ToolErrorBody {
  error: string
  code: string
  field?: string
}

/**
 * Calls a tool that must fail as a tool error: isError, one text item (the REST text, and a 402's
 * upgrade link) and the REST error body as structuredContent. Returns both.
 */
export async function callErrorResult(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; body: ToolErrorBody }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  expect(result.isError).toBe(true)
  expect(result.content).toHaveLength(1)
  const [item] = result.content
  expect(item?.type).toBe('text')
  const text = (item as { text: string }).text
  const body = result.structuredContent as unknown as ToolErrorBody
  expect(body).toMatchObject({ error: expect.any(String) as unknown, code: expect.any(String) as unknown })
  expect(text.startsWith(body.error), `${text} begins with ${body.error}`).toBe(true)
  return { text, body }
}

/** Calls a tool that must fail as a tool error (callErrorResult); returns its text. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  return (await callErrorResult(client, name, args)).text
}

import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { bodyOf, createSentDocument, setupOrg, type Json, type TestOrg } from './helpers/api.ts'
import { TOOL_NAMES } from './helpers/mcp.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Interoperability beyond our own SDK client: the MCP Inspector's CLI (the devDependency
 * @modelcontextprotocol/inspector-cli, run from node_modules, nothing downloaded) drives
 * the endpoint over Streamable HTTP with an API key, as a user would from a terminal.
 */

const run = promisify(execFile)
const inspectorCli = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'cli.js')

let server: TestServer
let org: TestOrg

beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server, { name: 'Inspector Org' })
})
afterAll(async () => {
  await server?.close()
})

/** Runs the Inspector CLI against /api/mcp with the key; returns its parsed JSON output. */
async function inspector(args: string[], apiKey = org.apiKey): Promise<Json> {
  const { stdout } = await run(
    process.execPath,
    [inspectorCli, '--cli', `${server.url}/api/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${apiKey}`, ...args],
    {
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
      // Inspector 1.0.3 checks for its package.json at "../package.json" relative to the working
      // directory but imports it relative to its own build/ folder: run it from that folder.
      cwd: dirname(inspectorCli),
      env: { ...process.env, NO_COLOR: '1' },
    },
  )
  return JSON.parse(stdout) as Json
}

describe('the MCP Inspector CLI as a second client', () => {
  test('tools/list: the ten tools with their schemas', async () => {
    const { tools } = (await inspector(['--method', 'tools/list'])) as { tools: Json[] }
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES)
    for (const tool of tools) {
      expect(tool.inputSchema, tool.name as string).toMatchObject({ type: 'object' })
      expect(tool.outputSchema, tool.name as string).toMatchObject({ type: 'object' })
    }
  }, 90_000)

  test("tools/call get_usage: the org's usage, the same as the REST report", async () => {
    await createSentDocument(server, org)
    const result = (await inspector(['--method', 'tools/call', '--tool-name', 'get_usage'])) as { content: Json[]; structuredContent: Json; isError?: boolean }
    expect(result.isError ?? false).toBe(false)
    const rest = await bodyOf(await server.request('/api/v1/usage', { key: org.apiKey }))
    expect(result.structuredContent).toEqual({ ...rest, spend_cap_reached: false })
    expect(result.structuredContent).toMatchObject({ org_id: org.orgId, plan: 'business', unlimited_units: 1 })
    expect(JSON.parse(result.content[0]?.text as string)).toEqual(result.structuredContent)
  }, 90_000)

  test('tools/call with an argument: get_document_status of a document', async () => {
    const id = await createSentDocument(server, org)
    const result = (await inspector(['--method', 'tools/call', '--tool-name', 'get_document_status', '--tool-arg', `document_id=${id}`])) as {
      structuredContent: Json
    }
    expect(result.structuredContent).toEqual(await bodyOf(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey })))
  }, 90_000)

  test('a bad key: the CLI fails with the 401 text', async () => {
    const failed = inspector(['--method', 'tools/list'], `sgn_live_${'0'.repeat(64)}`)
    await expect(failed).rejects.toThrow(/Invalid API key/)
  }, 90_000)
})

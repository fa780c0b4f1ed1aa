import { afterAll, describe, expect, test } from 'vitest'
import { setupOrg } from './helpers/api.ts'
import { logCapture } from './helpers/log-capture.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

const servers: TestServer[] = []
afterAll(() => Promise.all(servers.map((server) => server.close())))

/** The log lines a server wrote for requests to `url`. */
const linesFor = (entries: Record<string, unknown>[], url: string) => entries.filter((entry) => (entry.req as { url?: string } | undefined)?.url === url)

describe('the access log', () => {
  test('at info: one line per request with the method, path, status and time taken', async () => {
    const log = logCapture()
    const server = await startTestServer({ env: { LOG_LEVEL: 'info' }, logStream: log.stream })
    servers.push(server)
    const org = await setupOrg(server)
    const path = '/api/v1/documents/00000000-0000-4000-8000-000000000000'
    expect((await server.request(path, { key: org.apiKey })).status).toBe(404)

    const lines = linesFor(log.entries(), path)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: path }, res: { statusCode: 404 } })
    expect(typeof lines[0]?.responseTime).toBe('number')
  })

  test('at debug: the incoming request is logged too, so a request that never finishes can be traced', async () => {
    const log = logCapture()
    const server = await startTestServer({ env: { LOG_LEVEL: 'debug' }, logStream: log.stream })
    servers.push(server)
    expect((await server.request('/api/v1/usage')).status).toBe(401)
    expect(linesFor(log.entries(), '/api/v1/usage').map((line) => line.msg)).toEqual(['incoming request', 'request completed'])
  })
})

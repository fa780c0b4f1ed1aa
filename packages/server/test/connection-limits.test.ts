import { Agent, request as httpRequest, type IncomingMessage } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyOf, setupOrg, type TestOrg } from './helpers/api.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Connection limits over real sockets. Each server has one limit set short; a test that
 * waits for the server to act fails by timing out when the limit is missing.
 */

/** A raw connection to the server, with everything it received and whether the server closed it. */
interface RawConnection {
  socket: Socket
  received: () => string
  closed: Promise<void>
}

async function openConnection(server: TestServer): Promise<RawConnection> {
  const { hostname, port } = new URL(server.url)
  const socket = connect(Number(port), hostname)
  let data = ''
  socket.setEncoding('latin1').on('data', (chunk: string) => (data += chunk))
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  socket.on('error', () => undefined) // a reset is one more way of being closed
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  return { socket, received: () => data, closed }
}

/** GET over a keep-alive agent with one socket, so consecutive requests share a connection when the server allows. */
function get(server: TestServer, agent: Agent, path: string): Promise<{ response: IncomingMessage; reusedSocket: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${server.url}${path}`, { agent }, (response) => {
      let body = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ response, reusedSocket: request.reusedSocket, body }))
    })
    request.on('error', reject).end()
  })
}

const until = async (condition: () => Promise<boolean> | boolean) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe('REQUEST_TIMEOUT_MS: the whole request must arrive in time', () => {
  let server: TestServer
  let org: TestOrg
  beforeAll(async () => {
    server = await startTestServer({ env: { REQUEST_TIMEOUT_MS: '1000' } })
    org = await setupOrg(server)
  })
  afterAll(() => server.close())

  it('cuts off a body that trickles in a byte at a time, answering 408, before the route sees it', async () => {
    const body = JSON.stringify({ template_id: org.templateId, signer: { email: 'slow@example.com' } })
    const connection = await openConnection(server)
    connection.socket.write(
      `POST /api/v1/documents HTTP/1.1\r\nHost: signet.test\r\nAuthorization: Bearer ${org.apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    )
    // One byte every 100 ms: the connection is never idle, yet the body would take seconds.
    let sent = 0
    const trickle = setInterval(() => {
      if (sent < body.length - 1 && !connection.socket.destroyed) connection.socket.write(body[sent++] ?? '')
    }, 100)
    try {
      await connection.closed
    } finally {
      clearInterval(trickle)
    }
    expect(sent).toBeLessThan(body.length - 1)
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /)
    expect(connection.received().split('\r\n\r\n')[1]).toBe(
      '{"error":"The request did not arrive within REQUEST_TIMEOUT_MS; the connection is closed.","code":"request_timeout"}',
    )
    const list = await bodyOf<{ total: number }>(await server.request('/api/v1/documents', { key: org.apiKey }))
    expect(list.total).toBe(0)
  }, 20_000)

  it('leaves normal requests alone, and a keep-alive connection may wait longer than the timeout between requests', async () => {
    const created = await server.request('/api/v1/documents', {
      method: 'POST',
      key: org.apiKey,
      json: { template_id: org.templateId, signer: { email: 'a@example.com' } },
    })
    expect(created.status).toBe(201)

    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      expect((await get(server, agent, '/healthz')).response.statusCode).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const second = await get(server, agent, '/healthz')
      expect(second.response.statusCode).toBe(200)
      expect(second.reusedSocket).toBe(true)
    } finally {
      agent.destroy()
    }
  })
})

describe('CONNECTION_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS: quiet connections are closed', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: { CONNECTION_TIMEOUT_MS: '300', KEEP_ALIVE_TIMEOUT_MS: '300' } })
  })
  afterAll(() => server.close())

  it('closes a connection on which nothing moves', async () => {
    const connection = await openConnection(server)
    await connection.closed
    expect(connection.received()).toBe('')
  })

  it('closes a keep-alive connection that stays idle after its response', async () => {
    const connection = await openConnection(server)
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: signet.test\r\n\r\n')
    await connection.closed
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 [\s\S]*keep-alive/i)
  })
})

describe('requests that are not HTTP', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it('answers 400 with an {error} body and closes the connection', async () => {
    const connection = await openConnection(server)
    connection.socket.write('NOT HTTP AT ALL\r\n\r\n')
    await connection.closed
    expect(connection.received()).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*content-type: application\/json; charset=utf-8\r\n/i)
    expect(connection.received().split('\r\n\r\n')[1]).toBe('{"error":"The request is not valid HTTP.","code":"invalid_request"}')
  })

  it('answers 431 when the headers are too large', async () => {
    const connection = await openConnection(server)
    connection.socket.write(`GET /healthz HTTP/1.1\r\nHost: signet.test\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    await connection.closed
    expect(connection.received()).toMatch(/^HTTP\/1\.1 431 /)
    expect(connection.received().split('\r\n\r\n')[1]).toBe('{"error":"The request headers are too large.","code":"headers_too_large"}')
  })
})

describe('MAX_REQUESTS_PER_SOCKET and MAX_CONNECTIONS', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: { MAX_REQUESTS_PER_SOCKET: '3', MAX_CONNECTIONS: '2' } })
  })
  afterAll(() => server.close())

  it('closes a keep-alive connection after its third request', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const responses = []
      for (let i = 0; i < 4; i++) responses.push(await get(server, agent, '/healthz'))
      expect(responses.map((r) => r.response.statusCode)).toEqual([200, 200, 200, 200])
      expect(responses.map((r) => r.response.headers.connection)).toEqual(['keep-alive', 'keep-alive', 'close', 'keep-alive'])
      expect(responses.map((r) => r.reusedSocket)).toEqual([false, true, true, false])
    } finally {
      agent.destroy()
    }
  })

  it('refuses connections beyond the cap, and accepts again once one has closed', async () => {
    const connectionCount = () =>
      new Promise<number>((resolve, reject) => server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))))
    await until(async () => (await connectionCount()) === 0)
    const held = [await openConnection(server), await openConnection(server)]
    await until(async () => (await connectionCount()) === 2)

    const third = await openConnection(server)
    third.socket.write('GET /healthz HTTP/1.1\r\nHost: signet.test\r\n\r\n')
    await third.closed
    expect(third.received()).toBe('')

    held[0]?.socket.destroy()
    await until(async () => (await connectionCount()) < 2)
    expect((await server.request('/healthz', { headers: { connection: 'close' } })).status).toBe(200)
    held[1]?.socket.destroy()
  })
})

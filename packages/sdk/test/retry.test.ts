import { describe, expect, test } from 'vitest'
import { Signet, SignetError } from '../src/index.ts'

/** The retry policy with a scripted network: each call of the fake fetch takes the next step. */

type Step = Response | Error

function scripted(steps: Step[]) {
  const requests: { method: string; url: string; key: string | null; body: string }[] = []
  const waits: number[] = []
  const fetch = async (request: Request) => {
    requests.push({ method: request.method, url: request.url, key: request.headers.get('idempotency-key'), body: await request.text() })
    const step = steps.shift()
    if (!step) throw new Error('no more steps')
    if (step instanceof Error) throw step
    return step
  }
  const signet = new Signet({
    apiKey: 'sgn_live_test',
    baseUrl: 'https://sign.example.com/',
    fetch,
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms)
    },
  })
  return { signet, requests, waits }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
const usage = { plan: 'pro' }
const created = { id: 'd1', status: 'sent', expires_at: null, auth_required: false }
const body = { template_id: '00000000-0000-4000-8000-000000000000', signer: { email: 'ann@example.com' } }

describe('retries', () => {
  test('429 and 503 are retried, waiting Retry-After seconds when given and backing off with jitter otherwise', async () => {
    const { signet, requests, waits } = scripted([
      json(429, { error: 'Slow down.', code: 'rate_limited' }, { 'retry-after': '2' }),
      json(503, { error: 'Busy.', code: 'service_unavailable' }),
      json(200, usage),
    ])
    expect(await signet.usage.get()).toEqual(usage)
    expect(requests.map((r) => r.url)).toEqual(Array(3).fill('https://sign.example.com/api/v1/usage'))
    // 2 s as asked; then the second back-off step (1 s) at the jitter's midpoint: 750 ms.
    expect(waits).toEqual([2_000, 750])
  })

  test('gives up after maxRetries and throws the last answer as a SignetError', async () => {
    const { signet, requests, waits } = scripted(
      Array.from({ length: 4 }, () => json(429, { error: 'Slow down.', code: 'rate_limited' }, { 'retry-after': '1' })),
    )
    const error = (await signet.usage.get().catch((e: unknown) => e)) as SignetError
    expect(error).toBeInstanceOf(SignetError)
    expect(error).toMatchObject({ status: 429, error: 'Slow down.', code: 'rate_limited', retryAfter: 1 })
    expect(requests).toHaveLength(4)
    expect(waits).toEqual([1_000, 1_000, 1_000])
  })

  test('a create carries a new Idempotency-Key, the same one (and the same body) on every attempt after a network error', async () => {
    const { signet, requests } = scripted([new TypeError('fetch failed'), json(201, created)])
    expect(await signet.documents.create(body)).toEqual(created)
    expect(requests).toHaveLength(2)
    expect(requests[0]?.key).toMatch(/^[0-9a-f-]{36}$/)
    expect(requests[1]).toEqual(requests[0])
    expect(JSON.parse(requests[0]!.body)).toEqual(body)
  })

  test('two creates get two keys; a given key is used as it is', async () => {
    const { signet, requests } = scripted([json(201, created), json(201, created), json(201, created)])
    await signet.documents.create(body)
    await signet.documents.create(body)
    await signet.documents.create(body, { idempotencyKey: 'order-42' })
    expect(new Set(requests.map((r) => r.key)).size).toBe(3)
    expect(requests[2]?.key).toBe('order-42')
  })

  test('a 409 idempotency_key_in_progress is retried until the replay arrives; another 409 is not', async () => {
    const inProgress = json(409, { error: 'Still running.', code: 'idempotency_key_in_progress' }, { 'retry-after': '1' })
    const { signet, requests, waits } = scripted([inProgress, json(201, created), json(409, { error: 'Reused.', code: 'idempotency_key_reused' })])
    expect(await signet.documents.create(body)).toEqual(created)
    expect(waits).toEqual([1_000])
    await expect(signet.documents.create(body)).rejects.toMatchObject({ status: 409, code: 'idempotency_key_reused' })
    expect(requests).toHaveLength(3)
  })

  test('a POST without an Idempotency-Key is not repeated after a network error; a GET is', async () => {
    const { signet, requests } = scripted([new TypeError('fetch failed'), new TypeError('fetch failed'), json(200, { all: 0 })])
    await expect(signet.request('POST', '/documents/d1/void')).rejects.toThrow('fetch failed')
    expect(requests).toHaveLength(1)
    expect(await (await signet.request('GET', '/documents/counts')).json()).toEqual({ all: 0 })
    expect(requests).toHaveLength(3)
  })

  test('maxRetries: 0 sends once', async () => {
    const requests: string[] = []
    const signet = new Signet({
      apiKey: 'k',
      baseUrl: 'https://sign.example.com/api/v1',
      maxRetries: 0,
      fetch: (request) => {
        requests.push(request.url)
        return Promise.resolve(json(503, { error: 'Busy.', code: 'service_unavailable' }))
      },
    })
    await expect(signet.usage.get()).rejects.toMatchObject({ status: 503 })
    expect(requests).toEqual(['https://sign.example.com/api/v1/usage'])
  })

  test('an error answer that is not JSON still becomes a SignetError', async () => {
    const { signet } = scripted([new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' })])
    await expect(signet.usage.get()).rejects.toMatchObject({ status: 502, error: '<html>Bad gateway</html>', code: undefined })
  })

  test('sends the key and the User-Agent given', async () => {
    let seen: Headers | undefined
    const signet = new Signet({
      apiKey: 'sgn_live_abc',
      baseUrl: 'https://sign.example.com',
      userAgent: 'my-app/1.0',
      fetch: (request) => {
        seen = request.headers
        return Promise.resolve(json(200, usage))
      },
    })
    await signet.usage.get()
    expect(seen?.get('authorization')).toBe('Bearer sgn_live_abc')
    expect(seen?.get('user-agent')).toBe('my-app/1.0')
  })
})

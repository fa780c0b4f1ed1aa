import { PDF } from '@libpdf/core'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { createSentDocument, setupOrg, type TestOrg } from './helpers/api.ts'
import { imageHeavyPdf } from './helpers/hostile-pdfs.ts'
import { postSeal, verifyIdentity } from './helpers/seals.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Heavy PDF work happens in the worker pool, so while one org seals big files, another org's
 * requests and the health check keep being answered. Shown without a clock: the server's own
 * thread never opens or creates a PDF, and requests sent while the seals run complete before
 * the seals do. (Latencies are measured by `npm run bench`, see docs/benchmarks.md.)
 */

let server: TestServer
let sealing: TestOrg
let reading: TestOrg
let documentId: string

beforeAll(async () => {
  server = await startTestServer({ env: { PDF_WORKERS: '1' } })
  sealing = await setupOrg(server, { name: 'Big files' })
  await verifyIdentity(server, sealing.orgId)
  reading = await setupOrg(server, { name: 'Reader' })
  documentId = await createSentDocument(server, reading)
})
afterAll(async () => {
  await server?.close()
})

/** Keeps asking `path` until `until` settles; returns the statuses it got meanwhile. */
async function pollWhile(until: Promise<unknown>, path: string, key?: string): Promise<number[]> {
  let done = false
  void until.finally(() => {
    done = true
  })
  const statuses: number[] = []
  while (!done) {
    const response = await server.request(path, key ? { key } : {})
    await response.arrayBuffer()
    if (!done) statuses.push(response.status)
  }
  return statuses
}

test("another org's reads are answered while a 25 MB image-heavy PDF (just under PDF_MAX_MB) is sealed", async () => {
  // The server runs in this process: any PDF its event loop opened would pass through these.
  const opened = vi.spyOn(PDF, 'load')
  const created = vi.spyOn(PDF, 'create')
  const upload = postSeal(server, sealing.apiKey, imageHeavyPdf(24.9), { title: 'Scan' })
  const reads = await pollWhile(upload, `/api/v1/documents/${documentId}`, reading.apiKey)
  expect((await upload).status).toBe(201)
  expect(opened).not.toHaveBeenCalled()
  expect(created).not.toHaveBeenCalled()
  expect(reads.length).toBeGreaterThanOrEqual(10)
  expect(new Set(reads)).toEqual(new Set([200]))
})

test('the health check is answered while eight uploads share one worker', async () => {
  const pdf = imageHeavyPdf(5)
  const uploads = Promise.all(Array.from({ length: 8 }, (_, i) => postSeal(server, sealing.apiKey, pdf, { title: `Scan ${i}` })))
  const checks = await pollWhile(uploads, '/healthz')
  expect((await uploads).map((response) => response.status)).toEqual(Array(8).fill(201))
  expect(checks.length).toBeGreaterThanOrEqual(10)
  expect(new Set(checks)).toEqual(new Set([200]))
})

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { AppError } from '../src/errors.ts'
import { bodyOf, expectError, setupOrg, type TestOrg } from './helpers/api.ts'
import {
  flateBombPdf,
  heapHungryPdf,
  hugeImagePdf,
  imageHeavyPdf,
  lzwBombPdf,
  manyObjectsPdf,
  manyPagesPdf,
  objectStreamBombPdf,
} from './helpers/hostile-pdfs.ts'
import { makePdf } from './helpers/pdf.ts'
import { postSeal, verifyIdentity } from './helpers/seals.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * What one PDF may ask of the server (PDF_MAX_* and the worker pool's own limits): every
 * upload over a limit is refused with a 413 that names the limit, before the heavy work, and
 * the server goes on serving. The limits are set low here so each case stays small.
 */

let server: TestServer
let org: TestOrg

beforeAll(async () => {
  server = await startTestServer({
    env: {
      PDF_MAX_MB: '3',
      PDF_MAX_PAGES: '5',
      PDF_MAX_OBJECTS: '100',
      PDF_MAX_IMAGE_MEGAPIXELS: '1',
      PDF_MAX_DECOMPRESSED_MB: '16',
    },
  })
  org = await setupOrg(server, { name: 'Limits' })
  await verifyIdentity(server, org.orgId)
})
afterAll(async () => {
  await server?.close()
})

const seal = (pdf: Uint8Array) => postSeal(server, org.apiKey, pdf, { title: 'Limits' })

describe('each limit, named in its 413', () => {
  test('upload size (PDF_MAX_MB)', async () => {
    await expectError(await seal(imageHeavyPdf(4)), 413, 'The request body is larger than 3145728 bytes (PDF_MAX_MB).')
  })

  test('pages (PDF_MAX_PAGES), also when the page tree understates its count', async () => {
    await expectError(await seal(manyPagesPdf(6)), 413, 'The PDF has more pages than this server accepts (6; the limit is 5, PDF_MAX_PAGES).')
    await expectError(await seal(manyPagesPdf(6, 1)), 413, 'The PDF has more pages than this server accepts (6; the limit is 5, PDF_MAX_PAGES).')
    expect((await seal(manyPagesPdf(5))).status).toBe(201)
  })

  test('objects (PDF_MAX_OBJECTS)', async () => {
    await expectError(await seal(manyObjectsPdf(150)), 413, /has more objects than this server accepts \(15\d; the limit is 100, PDF_MAX_OBJECTS\)/)
  })

  test('image size (PDF_MAX_IMAGE_MEGAPIXELS): an image declared at 2000 × 2000', async () => {
    await expectError(
      await seal(hugeImagePdf(2000, 2000)),
      413,
      'The PDF has an image larger than this server accepts (4 megapixels; the limit is 1 megapixels, PDF_MAX_IMAGE_MEGAPIXELS).',
    )
  })

  test('decompressed size (PDF_MAX_DECOMPRESSED_MB): Flate and LZW streams, and an object stream that goes off while the file is opened', async () => {
    const message = 'The PDF decompresses to more than this server accepts (over 16 MB; the limit is 16 MB, PDF_MAX_DECOMPRESSED_MB).'
    await expectError(await seal(flateBombPdf(64)), 413, message)
    await expectError(await seal(lzwBombPdf(64)), 413, message)
    await expectError(await seal(objectStreamBombPdf(64)), 413, message)
  })

  test('templates are opened under the same limits', async () => {
    const created = executeAdminCommand(server.services, {
      name: 'template.create',
      orgId: org.orgId,
      templateName: 'Too long',
      pdfBase64: manyPagesPdf(6).toString('base64'),
    })
    await expect(created).rejects.toThrow(/more pages than this server accepts .*PDF_MAX_PAGES/)
  })

  test('after all of that, an ordinary PDF is sealed', async () => {
    expect((await seal(await makePdf(2))).status).toBe(201)
  })
})

describe('the worker pool', () => {
  let busy: TestServer
  let busyOrg: TestOrg

  beforeAll(async () => {
    // One worker, no queue, a 2 s time limit (a fresh worker's first seal, fonts and all, must fit in it on a
    // busy machine), and a decompression budget high enough that time runs out first.
    busy = await startTestServer({ env: { PDF_WORKERS: '1', PDF_QUEUE: '0', PDF_TASK_TIMEOUT_MS: '2000', PDF_MAX_DECOMPRESSED_MB: '65536' } })
    busyOrg = await setupOrg(busy, { name: 'Busy' })
    await verifyIdentity(busy, busyOrg.orgId)
  })
  afterAll(async () => {
    await busy?.close()
  })

  const sealOn = (pdf: Uint8Array) => postSeal(busy, busyOrg.apiKey, pdf, { title: 'Busy' })

  test('a PDF that takes longer than PDF_TASK_TIMEOUT_MS to open is refused, and its worker replaced', async () => {
    // 80 streams of 100 MB of zeros: several seconds of inflating, on any machine.
    await expectError(await sealOn(flateBombPdf(100, 80)), 413, 'The PDF took longer than this server allows (2 s, PDF_TASK_TIMEOUT_MS).')
    expect((await sealOn(await makePdf(1))).status).toBe(201)
  })

  test('a PDF that needs more heap than PDF_WORKER_MEMORY_MB is refused, and its worker replaced', async () => {
    const small = await startTestServer({ env: { PDF_WORKERS: '1', PDF_WORKER_MEMORY_MB: '64' } })
    try {
      const smallOrg = await setupOrg(small, { name: 'Small heap' })
      await verifyIdentity(small, smallOrg.orgId)
      const sealSmall = (pdf: Uint8Array) => postSeal(small, smallOrg.apiKey, pdf, { title: 'Small heap' })
      await expectError(await sealSmall(heapHungryPdf(4_000_000)), 413, 'The PDF needs more memory than this server allows (64 MB, PDF_WORKER_MEMORY_MB).')
      expect((await sealSmall(await makePdf(1))).status).toBe(201)
    } finally {
      await small.close()
    }
  })

  test('with every worker busy and the queue full, a task is refused at once with 503 and Retry-After', async () => {
    const { pdfWork } = busy.services
    const slow = pdfWork.inspect(flateBombPdf(100, 40)).catch((error: unknown) => error)
    const refused = await pdfWork.inspect(await makePdf(1)).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(AppError)
    expect(refused).toMatchObject({ status: 503, headers: { 'retry-after': '5' }, message: 'The server is busy with other documents. Try again in 5 seconds.' })
    expect(await slow).toBeInstanceOf(AppError)
  })

  /*
   * An upload refused while it is opened gets 503 (nothing was stored). One that was opened and
   * stored but whose seal then found every worker busy is accepted as pending (202): the seal is
   * retried in the background, so the client must not send it again.
   */
  test('over HTTP, concurrent uploads beyond the pool get 503 with Retry-After, or 202 when already stored; the others are sealed', async () => {
    const pdf = imageHeavyPdf(4)
    const responses = await Promise.all(Array.from({ length: 6 }, () => sealOn(pdf)))
    const statuses = responses.map((response) => response.status)
    expect(statuses).toContain(503)
    expect(statuses.every((status) => status === 201 || status === 202 || status === 503)).toBe(true)
    for (const response of responses.filter((candidate) => candidate.status === 503)) {
      expect(response.headers.get('retry-after')).toBe('5')
      await expectError(response, 503, 'The server is busy with other documents. Try again in 5 seconds.')
    }
    const accepted = await Promise.all(
      responses.filter((r) => r.status !== 503).map((r) => bodyOf<{ id: string; seal_status: string; last_error: string | null }>(r)),
    )
    expect(accepted.length).toBeGreaterThan(0)
    for (const seal of accepted.filter((s) => s.seal_status === 'pending')) {
      expect(seal.last_error).toBe('every PDF worker of this server was busy; it is retried in a few seconds')
    }
    // Every accepted upload ends sealed: the pending ones by the background job.
    for (const seal of accepted) {
      await expect
        .poll(async () => (await bodyOf<{ seal_status: string }>(await busy.request(`/api/v1/seals/${seal.id}`, { key: busyOrg.apiKey }))).seal_status, {
          timeout: 60_000,
          interval: 500,
        })
        .toBe('sealed')
    }
  }, 120_000)
})

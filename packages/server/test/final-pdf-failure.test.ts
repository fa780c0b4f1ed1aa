import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { documents } from '../src/db/schema.ts'
import { MAX_RENDER_ATTEMPTS } from '../src/documents/final-pdf-job.ts'
import { PdfWorkFailed } from '../src/pdf-work/pdf-work.ts'
import { bodyOf, expectError, setupOrg, type TestOrg } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { logCapture } from './helpers/log-capture.ts'
import { sendForSigning, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * A completed document whose signed PDF cannot be produced is not retried forever: the
 * failure is recorded, shown on the document and in its signed-file 404, alerted in the
 * log, and tried again only when an operator asks (`admin document rerender`). PDF work is
 * the PdfWork adapter's, which these tests make fail.
 */

const moving = movableClock()
const log = logCapture()
let server: TestServer
let org: TestOrg

beforeAll(async () => {
  server = await startTestServer({ clock: moving.clock, env: { LOG_LEVEL: 'info', JOB_POLL_MS: '100' }, logStream: log.stream })
  org = await setupOrg(server, { name: 'Renders' })
})
afterAll(async () => {
  vi.restoreAllMocks()
  await server?.close()
})

interface DocumentBody {
  status: string
  signed_pdf_status: string | null
  signed_pdf_error: string | null
}
const readDocument = async (id: string) => bodyOf<DocumentBody>(await server.request(`/api/v1/documents/${id}`, { key: org.apiKey }))

/** Waits (without a clock) until `done` holds, nudging the background job meanwhile. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await done())) {
    server.services.finalPdfs.kick()
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function waitForSignedPdf(id: string, status: string): Promise<DocumentBody> {
  await until(async () => (await readDocument(id)).signed_pdf_status === status)
  return readDocument(id)
}

async function completedDocument(): Promise<string> {
  const { documentId, signers } = await sendForSigning(server, org)
  expect((await signers[0]!.finish(valuesFor(0))).status).toBe(200)
  return documentId
}

describe('a final PDF that cannot be produced', () => {
  test('a permanent failure is given up at once: shown, alerted, not retried, until an operator asks', async () => {
    const render = vi
      .spyOn(server.services.pdfWork, 'renderSignedPdf')
      .mockRejectedValue(new PdfWorkFailed('The PDF took longer than this server allows (60 s, PDF_TASK_TIMEOUT_MS).', true))
    const id = await completedDocument()
    const failed = await waitForSignedPdf(id, 'failed')
    expect(failed).toMatchObject({ status: 'completed', signed_pdf_error: 'The PDF took longer than this server allows (60 s, PDF_TASK_TIMEOUT_MS).' })
    await expectError(
      await server.request(`/api/v1/documents/${id}/signed-file`, { key: org.apiKey }),
      404,
      'The signed PDF could not be produced (The PDF took longer than this server allows (60 s, PDF_TASK_TIMEOUT_MS).); the operator of this service has been alerted.',
    )
    const alert = log.entries().find((entry) => entry.alert === 'final-pdf-failed' && entry.documentId === id)
    expect(alert).toMatchObject({ level: 50, msg: expect.stringContaining(`npm run admin -- document rerender --id ${id}`) as unknown })
    // Nothing is due any more: however often the job runs, it does not try again.
    const [row] = await server.services.db
      .select({ nextRenderAt: documents.nextRenderAt, attempts: documents.renderAttempts })
      .from(documents)
      .where(eq(documents.id, id))
    expect(row).toEqual({ nextRenderAt: null, attempts: 1 })
    expect(render).toHaveBeenCalledTimes(1)

    render.mockRestore()
    expect(await executeAdminCommand(server.services, { name: 'document.rerender', documentId: id })).toEqual({ document_id: id, scheduled: true })
    expect(await waitForSignedPdf(id, 'ready')).toMatchObject({ signed_pdf_error: null })
    expect((await server.request(`/api/v1/documents/${id}/signed-file`, { key: org.apiKey })).status).toBe(200)
    await expect(executeAdminCommand(server.services, { name: 'document.rerender', documentId: id })).rejects.toThrow(
      'No completed document without its final PDF has this id.',
    )
  })

  test(`any other failure is retried with back-off, and given up after ${MAX_RENDER_ATTEMPTS} attempts`, async () => {
    const render = vi.spyOn(server.services.pdfWork, 'renderSignedPdf').mockRejectedValue(new Error('disk on fire'))
    const id = await completedDocument()
    for (let attempt = 1; attempt <= MAX_RENDER_ATTEMPTS; attempt++) {
      await until(() => render.mock.calls.length >= attempt)
      if (attempt < MAX_RENDER_ATTEMPTS) expect((await readDocument(id)).signed_pdf_status).toBe('pending')
      // The next attempt is due after its back-off: move the clock past it rather than wait.
      moving.advance(2 * 3_600_000)
    }
    expect(await waitForSignedPdf(id, 'failed')).toMatchObject({ signed_pdf_error: 'it could not be produced' })
    expect(render).toHaveBeenCalledTimes(MAX_RENDER_ATTEMPTS)
    render.mockRestore()
  })
})

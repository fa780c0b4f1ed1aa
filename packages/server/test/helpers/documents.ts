import { writeFileSync } from 'node:fs'
import type { DocumentStatus } from '../../src/db/schema.ts'
import { documents } from '../../src/db/schema.ts'
import type { TestServer } from './test-server.ts'

export interface DocumentRowInput {
  status?: DocumentStatus
  isVerifiedBadge?: boolean
  createdAt?: Date
  title?: string
}

/**
 * Inserts documents straight into the database, for states the API cannot reach yet
 * (completed, self-sealed) or timestamps it cannot choose (several in one millisecond).
 * Returns their ids in insertion order.
 */
export async function insertDocuments(server: TestServer, orgId: string, rows: DocumentRowInput[]): Promise<string[]> {
  const inserted = await server.services.db
    .insert(documents)
    .values(
      rows.map((row) => ({
        orgId,
        title: row.title ?? 'Inserted document',
        status: row.status ?? 'sent',
        isVerifiedBadge: row.isVerifiedBadge ?? false,
        ...(row.createdAt ? { createdAt: row.createdAt, updatedAt: row.createdAt } : {}),
      })),
    )
    .returning({ id: documents.id })
  return inserted.map((r) => r.id)
}

/**
 * Waits (up to `timeoutMs`) until the document's signed PDF is served — the background job renders
 * it after the last signature — and saves it to `path`. Throws with the last status when it never is.
 */
export async function saveSignedPdf(server: TestServer, apiKey: string, documentId: string, path: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const file = await server.request(`/api/v1/documents/${documentId}/signed-file`, { key: apiKey })
    if (file.status === 200) {
      writeFileSync(path, Buffer.from(await file.arrayBuffer()))
      return path
    }
    if (Date.now() > deadline) throw new Error(`the signed PDF of ${documentId} was not served within ${timeoutMs} ms (last status ${file.status})`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

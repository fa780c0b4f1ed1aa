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

import type { templates } from '../db/schema.ts'

/** The spec's Template resource. */
export interface TemplateView {
  id: string
  name: string
  page_count: number
  created_at: string
}

export const presentTemplate = (row: Pick<typeof templates.$inferSelect, 'id' | 'name' | 'pageCount' | 'createdAt'>): TemplateView => ({
  id: row.id,
  name: row.name,
  page_count: row.pageCount,
  created_at: row.createdAt.toISOString(),
})

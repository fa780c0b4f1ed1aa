import type { templates } from '../db/schema.ts'
import type { TemplateView } from './templates.schemas.ts'

export const presentTemplate = (row: Pick<typeof templates.$inferSelect, 'id' | 'name' | 'pageCount' | 'createdAt' | 'roles'>): TemplateView => ({
  id: row.id,
  name: row.name,
  page_count: row.pageCount,
  created_at: row.createdAt.toISOString(),
  roles: row.roles,
})

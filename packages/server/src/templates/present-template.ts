import type { templates } from '../db/schema.ts'
import type { PageSize } from '../pdf-work/inspect.ts'
import { roleNamesView } from './roles.ts'
import type { TemplateDetail, TemplateView } from './templates.schemas.ts'

export const presentTemplate = (row: Pick<typeof templates.$inferSelect, 'id' | 'name' | 'pageCount' | 'createdAt' | 'roles' | 'roleNames'>): TemplateView => ({
  id: row.id,
  name: row.name,
  page_count: row.pageCount,
  created_at: row.createdAt.toISOString(),
  roles: row.roles,
  ...roleNamesView(row.roleNames),
})

/** A template with what the field editor needs: its fields and each page's size as displayed. */
export const presentTemplateDetail = (row: typeof templates.$inferSelect, pages: PageSize[]): TemplateDetail => ({
  ...presentTemplate(row),
  updated_at: row.updatedAt.toISOString(),
  fields: row.fields,
  pages: pages.map(({ width, height }) => ({ width, height })),
})

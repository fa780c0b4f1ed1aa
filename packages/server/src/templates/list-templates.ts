import { and, count, desc, eq, isNull } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { templates } from '../db/schema.ts'
import type { Principal } from '../actors/principal.ts'
import type { Page } from '../lib/paging.ts'
import { presentTemplate } from './present-template.ts'
import type { TemplateList } from './templates.schemas.ts'

/** The org's live (not deleted) templates, newest first (ties broken by id so pages never overlap). */
export async function listTemplates(db: Db, principal: Principal, page: Page): Promise<TemplateList> {
  const where = and(eq(templates.orgId, principal.orgId), isNull(templates.deletedAt))
  const [rows, [totals]] = await Promise.all([
    db
      .select({
        id: templates.id,
        name: templates.name,
        pageCount: templates.pageCount,
        createdAt: templates.createdAt,
        roles: templates.roles,
        roleNames: templates.roleNames,
      })
      .from(templates)
      .where(where)
      .orderBy(desc(templates.createdAt), desc(templates.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(templates).where(where),
  ])
  const total = totals?.total ?? 0
  return {
    templates: rows.map(presentTemplate),
    total,
    limit: page.limit,
    offset: page.offset,
    has_more: page.offset + rows.length < total,
    org_name: principal.orgName,
  }
}

import { and, eq, isNull } from 'drizzle-orm'
import type { Principal } from '../actors/principal.ts'
import { assertTemplateAllowed } from '../billing/template-limit.ts'
import type { Db } from '../db/client.ts'
import { documents, templates } from '../db/schema.ts'
import type { FileDownload } from '../documents/document-files.ts'
import { AppError, notFound } from '../errors.ts'
import { isUuid } from '../lib/ids.ts'
import type { Services } from '../services.ts'
import { fileBaseName } from '../signing/produce-signed-pdf.ts'
import { templateName } from './create-template.ts'
import { resolveFields, rolesOf } from './fields.ts'
import { pageSizesOf } from './page-sizes.ts'
import { presentTemplateDetail } from './present-template.ts'
import { resolveTemplateRoles, rolesStillIn } from './roles.ts'
import type { TemplateRoleInput } from './roles.schemas.ts'
import type { TemplateDetail } from './templates.schemas.ts'

/*
 * The dashboard's template operations. Templates are managed by every role of a workspace
 * (and by API keys). A deleted template is gone from every read and send (the same 404 /
 * "Template not found." as one that never existed); documents sent from it keep it.
 */

type TemplateRow = typeof templates.$inferSelect
type TemplateServices = Pick<Services, 'db' | 'blobs' | 'pdfWork' | 'clock'>

const templateNotFound = () => notFound('Template not found.')

const liveInOrg = (orgId: string, templateId: string) => and(eq(templates.id, templateId), eq(templates.orgId, orgId), isNull(templates.deletedAt))

/** The org's live template, or the same 404 whether it is missing, malformed, deleted or another org's. */
async function findTemplate(db: Db, orgId: string, templateId: string): Promise<TemplateRow> {
  const [row] = isUuid(templateId) ? await db.select().from(templates).where(liveInOrg(orgId, templateId)) : []
  if (!row) throw templateNotFound()
  return row
}

const detailOf = async (services: TemplateServices, row: TemplateRow): Promise<TemplateDetail> =>
  presentTemplateDetail(row, await pageSizesOf(services, row.pdfSha256))

export async function getTemplate(services: TemplateServices, principal: Principal, templateId: string): Promise<TemplateDetail> {
  return detailOf(services, await findTemplate(services.db, principal.orgId, templateId))
}

export async function getTemplatePdf(services: Pick<Services, 'db' | 'blobs'>, principal: Principal, templateId: string): Promise<FileDownload> {
  const row = await findTemplate(services.db, principal.orgId, templateId)
  const body = await services.blobs.open(row.pdfSha256)
  if (!body) throw new Error(`template PDF ${row.pdfSha256} is missing`)
  return { contentType: 'application/pdf', filename: `${fileBaseName(row.name)}.pdf`, body, sha256: row.pdfSha256 }
}

/**
 * Replaces the template's fields, checked as the CLI's `template create` checks a fields file
 * (same texts; a field off its page is refused). A template that documents were sent from
 * keeps its fields: signers' pages and entered values refer to them by position.
 */
export async function setTemplateFields(services: TemplateServices, principal: Principal, templateId: string, input: unknown): Promise<TemplateDetail> {
  const template = await findTemplate(services.db, principal.orgId, templateId)
  const pages = await pageSizesOf(services, template.pdfSha256)
  const fields = resolveFields(input, pages)
  const row = await services.db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ id: templates.id, roleNames: templates.roleNames })
      .from(templates)
      .where(liveInOrg(principal.orgId, template.id))
      .for('update')
    if (!locked) throw templateNotFound()
    const [used] = await tx
      .select({ id: documents.id })
      .from(documents)
      .where(and(eq(documents.orgId, principal.orgId), eq(documents.templateId, template.id)))
      .limit(1)
    if (used) {
      throw new AppError(
        'conflict',
        'Documents have been sent from this template, so its fields can no longer change (they belong to those documents). Duplicate the template and edit the copy.',
      )
    }
    const roles = rolesOf(fields)
    const [updated] = await tx
      .update(templates)
      .set({ fields, roles, roleNames: rolesStillIn(locked.roleNames, roles), updatedAt: services.clock.now() })
      .where(eq(templates.id, template.id))
      .returning()
    return updated
  })
  if (!row) throw templateNotFound()
  return presentTemplateDetail(row, pages)
}

/**
 * Names the template's roles and sets their default steps (PUT …/roles), replacing what was set.
 * Allowed after documents were sent from the template: each of them keeps the names it was sent with.
 */
export async function setTemplateRoles(
  services: TemplateServices,
  principal: Principal,
  templateId: string,
  input: TemplateRoleInput[],
): Promise<TemplateDetail> {
  if (!isUuid(templateId)) throw templateNotFound()
  const row = await services.db.transaction(async (tx) => {
    // Under the row's lock: the roles checked are the ones a field save running at the same time leaves.
    const [template] = await tx.select({ id: templates.id, roles: templates.roles }).from(templates).where(liveInOrg(principal.orgId, templateId)).for('update')
    if (!template) throw templateNotFound()
    const roleNames = resolveTemplateRoles(input, template.roles)
    const [updated] = await tx
      .update(templates)
      .set({ roleNames: roleNames.length > 0 ? roleNames : null, updatedAt: services.clock.now() })
      .where(eq(templates.id, template.id))
      .returning()
    return updated
  })
  if (!row) throw templateNotFound()
  return detailOf(services, row)
}

export async function renameTemplate(services: TemplateServices, principal: Principal, templateId: string, rawName: string): Promise<TemplateDetail> {
  const name = templateName(rawName)
  if (!isUuid(templateId)) throw templateNotFound()
  const [row] = await services.db.update(templates).set({ name, updatedAt: services.clock.now() }).where(liveInOrg(principal.orgId, templateId)).returning()
  if (!row) throw templateNotFound()
  return detailOf(services, row)
}

/** Soft delete: hidden from lists and sends, and no longer counted against the plan's template limit. */
export async function deleteTemplate(services: Pick<Services, 'db' | 'clock'>, principal: Principal, templateId: string): Promise<void> {
  if (!isUuid(templateId)) throw templateNotFound()
  const now = services.clock.now()
  const [row] = await services.db
    .update(templates)
    .set({ deletedAt: now, updatedAt: now })
    .where(liveInOrg(principal.orgId, templateId))
    .returning({ id: templates.id })
  if (!row) throw templateNotFound()
}

/** A copy with the same PDF and fields, named "Copy of …"; counts against the plan's template limit like an upload. */
export async function duplicateTemplate(services: TemplateServices, principal: Principal, templateId: string): Promise<TemplateDetail> {
  const source = await findTemplate(services.db, principal.orgId, templateId)
  const row = await services.db.transaction(async (tx) => {
    await assertTemplateAllowed(tx, principal.orgId)
    const [inserted] = await tx
      .insert(templates)
      .values({
        orgId: principal.orgId,
        name: `Copy of ${source.name}`.slice(0, 200),
        pageCount: source.pageCount,
        pdfSha256: source.pdfSha256,
        fields: source.fields,
        roles: source.roles,
        roleNames: source.roleNames,
      })
      .returning()
    if (!inserted) throw new Error('insert returned no row')
    return inserted
  })
  return detailOf(services, row)
}

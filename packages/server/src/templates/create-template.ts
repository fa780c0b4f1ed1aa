import { assertTemplateAllowed } from '../billing/template-limit.ts'
import type { TemplateField } from '../db/schema.ts'
import type { Services } from '../services.ts'
import { templates } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { requireOrg } from '../orgs/require-org.ts'
import type { PageSize } from '../pdf-work/inspect.ts'
import { resolveFields, rolesOf } from './fields.ts'
import { rememberPageSizes } from './page-sizes.ts'
import { presentTemplate, presentTemplateDetail } from './present-template.ts'
import type { TemplateDetail, TemplateView } from './templates.schemas.ts'

export interface CreateTemplateInput {
  orgId: string
  name: string
  pdf: Uint8Array
  /** Parsed fields file, validated here; undefined places one default signature field. */
  fields?: unknown
}

type TemplateServices = Pick<Services, 'db' | 'blobs' | 'pdfWork'>

/** A template name as stored: trimmed, 1 to 200 characters. */
export function templateName(raw: string): string {
  const name = raw.trim()
  if (name.length === 0 || name.length > 200) throw invalid('Template name must be 1 to 200 characters.')
  return name
}

/** Saves a PDF with its fields as a template; returns the Template plus the roles it needs. */
export async function createTemplate(services: TemplateServices, input: CreateTemplateInput): Promise<TemplateView> {
  const { row } = await saveTemplate(services, input, (pages) => resolveFields(input.fields, pages))
  return presentTemplate(row)
}

/** A dashboard upload: the PDF alone, no fields yet (they are placed in the editor); with its page sizes. */
export async function uploadTemplate(services: TemplateServices, input: Omit<CreateTemplateInput, 'fields'>): Promise<TemplateDetail> {
  const { row, pages } = await saveTemplate(services, input, () => [])
  return presentTemplateDetail(row, pages)
}

/**
 * Opens the PDF in the worker pool (a 400/413 when it is unusable), places the fields the
 * caller derives from its pages, and stores both. Free: one template per org (402 with
 * upgrade_url), checked under the org row's lock.
 */
async function saveTemplate(services: TemplateServices, input: Omit<CreateTemplateInput, 'fields'>, place: (pages: PageSize[]) => TemplateField[]) {
  const name = templateName(input.name)
  await requireOrg(services.db, input.orgId)
  const { pages, pdf, sha256 } = await services.pdfWork.inspect(input.pdf)
  const fields = place(pages)
  const blob = await services.blobs.stage(pdf, sha256)
  const row = await services.db.transaction(async (tx) => {
    await assertTemplateAllowed(tx, input.orgId)
    const pdfSha256 = await services.blobs.put(tx, blob)
    const [inserted] = await tx
      .insert(templates)
      .values({ orgId: input.orgId, name, pageCount: pages.length, pdfSha256, fields, roles: rolesOf(fields) })
      .returning()
    if (!inserted) throw new Error('insert returned no row')
    return inserted
  })
  rememberPageSizes(sha256, pages)
  return { row, pages }
}

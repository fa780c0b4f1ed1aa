import { assertTemplateAllowed } from '../billing/template-limit.ts'
import type { Services } from '../services.ts'
import { templates } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { requireOrg } from '../orgs/orgs.ts'
import { resolveFields, rolesOf } from './fields.ts'
import { presentTemplate } from './present-template.ts'
import type { TemplateView } from './templates.schemas.ts'

export interface CreateTemplateInput {
  orgId: string
  name: string
  pdf: Uint8Array
  /** Parsed fields file, validated here; undefined places one default signature field. */
  fields?: unknown
}

/** Saves a PDF with its fields as a template; returns the Template plus the roles it needs. */
export async function createTemplate(
  services: Pick<Services, 'db' | 'blobs' | 'pdfWork'>,
  input: CreateTemplateInput,
): Promise<TemplateView> {
  const name = input.name.trim()
  if (name.length === 0 || name.length > 200) throw invalid('Template name must be 1 to 200 characters.')
  await requireOrg(services.db, input.orgId)
  const { pages, pdf, sha256 } = await services.pdfWork.inspect(input.pdf)
  const fields = resolveFields(input.fields, pages)
  const roles = rolesOf(fields)
  const blob = await services.blobs.stage(pdf, sha256)
  const row = await services.db.transaction(async (tx) => {
    // Free: one template per org (402 with upgrade_url), checked under the org row's lock.
    await assertTemplateAllowed(tx, input.orgId)
    const pdfSha256 = await services.blobs.put(tx, blob)
    const [inserted] = await tx
      .insert(templates)
      .values({ orgId: input.orgId, name, pageCount: pages.length, pdfSha256, fields, roles })
      .returning()
    if (!inserted) throw new Error('insert returned no row')
    return inserted
  })
  return presentTemplate(row)
}

import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { documents, orgs, signers, templates } from '../db/schema.ts'
import { notFound } from '../errors.ts'
import { sha256Hex } from '../lib/crypto.ts'
import { preparedPer } from '../lib/prepared.ts'
import type { SignerFieldWithPrefill } from './field-values.ts'
import { forSigner } from './i18n/error-texts.ts'

/** What a signing link leads to: the signer, their document and its template. */
export interface SignerContext {
  signer: Pick<
    typeof signers.$inferSelect,
    'id' | 'role' | 'email' | 'name' | 'status' | 'authRequired' | 'authVerified' | 'viewedAt' | 'signedAt' | 'signingOrder' | 'roleName'
  >
  document: Pick<typeof documents.$inferSelect, 'id' | 'orgId' | 'title' | 'status' | 'expiresAt' | 'updatedAt' | 'signedPdfSha256' | 'prefill' | 'language'>
  template: Pick<typeof templates.$inferSelect, 'id' | 'pdfSha256' | 'fields' | 'pageCount'>
  orgName: string
  /** The workspace's default language for signer pages and e-mails (extension; null = English). */
  workspaceLanguage: string | null
  /** Set when the page was opened through an embed URL (signing/embed), not the e-mailed link. */
  embedded?: EmbeddedAccess
}

/** How an embedded signer page was reached: who vouched for the signer, and where the page may be framed and post its events. */
export interface EmbeddedAccess {
  /** As the audit trail names them: `api_key sgn_live_1a2b3c4d`, `session ann@example.com`. */
  vouchedBy: string
  signerAuthenticated: boolean
  /** The registered origin the page posts signet:* messages to; null: none. */
  parentOrigin: string | null
  /** The workspace's embed origins now (the page's CSP frame-ancestors). */
  frameAncestors: string[]
}

/** Tokens are 32 random bytes in base64url: anything else is rejected before touching the database. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/

/** The columns of SignerContext['signer'] and ['document'], for every query that reads them. */
export const signerColumns = {
  id: signers.id,
  role: signers.role,
  email: signers.email,
  name: signers.name,
  status: signers.status,
  authRequired: signers.authRequired,
  authVerified: signers.authVerified,
  viewedAt: signers.viewedAt,
  signedAt: signers.signedAt,
  signingOrder: signers.signingOrder,
  roleName: signers.roleName,
}
export const documentColumns = {
  id: documents.id,
  orgId: documents.orgId,
  title: documents.title,
  status: documents.status,
  expiresAt: documents.expiresAt,
  updatedAt: documents.updatedAt,
  signedPdfSha256: documents.signedPdfSha256,
  prefill: documents.prefill,
  language: documents.language,
}

/** What the signer page needs of a document's template. */
export const templateColumns = { id: templates.id, pdfSha256: templates.pdfSha256, fields: templates.fields, pageCount: templates.pageCount }

const signerByTokenHash = preparedPer((db) =>
  db
    .select({
      signer: signerColumns,
      document: documentColumns,
      template: templateColumns,
      orgName: orgs.name,
      workspaceLanguage: orgs.signerLanguage,
    })
    .from(signers)
    .innerJoin(documents, eq(documents.id, signers.documentId))
    .innerJoin(templates, eq(templates.id, documents.templateId))
    .innerJoin(orgs, eq(orgs.id, documents.orgId))
    .where(eq(signers.tokenHash, sql.placeholder('tokenHash')))
    .prepare('signer_by_token_hash'),
)

export const invalidLink = () =>
  forSigner(notFound('This signing link is not valid. Check that you copied the whole link from your e-mail.'), 'status.invalidLink.message')

/** Looks a signing link up by the hash of its token (the token itself is never stored). */
export async function loadSignerContext(db: Db, token: string): Promise<SignerContext> {
  if (!TOKEN_SHAPE.test(token)) throw invalidLink()
  const [row] = await signerByTokenHash(db).execute({ tokenHash: sha256Hex(token) })
  if (!row) throw invalidLink()
  return row
}

/**
 * The fields this signer fills, with their index in the template as id and what the sender
 * prefilled (a name field starts as the signer's name, which they may change).
 */
export function fieldsOf(context: SignerContext): SignerFieldWithPrefill[] {
  const { signer, document } = context
  return context.template.fields.flatMap((field, id) => {
    if (field.role !== signer.role) return []
    const prefill = document.prefill?.[String(id)] ?? (field.type === 'name' && signer.name ? { value: signer.name, readOnly: false } : undefined)
    return [{ id, ...field, ...(prefill ? { prefill } : {}) }]
  })
}

import { asc, eq } from 'drizzle-orm'
import type { BlobStore } from '../adapters/blob-store.ts'
import { appendAuditEvents, checkAuditChain, readAuditTrail, type AuditEvent } from '../audit/audit-trail.ts'
import { stageSeal, storeFinalPdf, type FinalPdfDeps } from '../documents/final-pdf.ts'
import { documents, orgs, signers, templates, type StoredFieldValue } from '../db/schema.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { completedMail } from '../mail/templates.ts'
import { mailLanguage } from './i18n/languages.ts'
import { authMethodOf } from './locked-state.ts'
import type { CertificateDetails, CertificateSigner, RenderedFieldValue } from './signed-pdf.ts'

/** Who sent the document and how, from the first event of its trail (the certificate words it in its language). */
function sentBy(trail: AuditEvent[]): CertificateDetails['sentBy'] {
  const sent = trail.find((e) => e.type === 'document.sent')
  if (!sent) return '—'
  return { method: sent.authMethod ?? null, agent: sent.agentTriggered }
}

/** A document's title made safe as the start of a file name. */
export const fileBaseName = (title: string): string =>
  title
    .replace(/\p{Pd}/gu, '-')
    .replace(/[^\p{L}\p{N} .@_-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100)
    .trim() || 'document'

/** The filename a signed PDF is downloaded and attached under. */
export const signedPdfFilename = (title: string): string => `${fileBaseName(title)} (signed).pdf`

/** Renders, seals, stores and announces one signed document's final PDF. */
export async function produceSignedPdf(deps: FinalPdfDeps, documentId: string): Promise<void> {
  const { db, blobs, clock } = deps
  const [document] = await db
    .select({
      id: documents.id,
      orgId: documents.orgId,
      title: documents.title,
      completedAt: documents.completedAt,
      cc: documents.cc,
      orgName: orgs.name,
      documentLanguage: documents.language,
      workspaceLanguage: orgs.signerLanguage,
      template: templates,
    })
    .from(documents)
    .innerJoin(orgs, eq(orgs.id, documents.orgId))
    .innerJoin(templates, eq(templates.id, documents.templateId))
    .where(eq(documents.id, documentId))
  if (!document?.completedAt) throw new Error(`document ${documentId} is not a completed template document`)
  const [original, people, trail] = await Promise.all([
    blobs.get(document.template.pdfSha256),
    db.select().from(signers).where(eq(signers.documentId, documentId)).orderBy(asc(signers.position)),
    readAuditTrail(db, documentId),
  ])
  if (!original) throw new Error(`template PDF ${document.template.pdfSha256} is missing`)
  const chain = checkAuditChain(trail)
  if (!chain.intact) throw new Error(`audit trail of ${documentId} is broken at event ${chain.brokenAtSeq}`)
  // The completed mails and the certificate: the document's language, else the workspace's, else English.
  const language = mailLanguage(document.documentLanguage, document.workspaceLanguage)

  const values: (RenderedFieldValue | undefined)[] = document.template.fields.map(() => undefined)
  for (const signer of people) {
    for (const [id, stored] of Object.entries(signer.fieldValues ?? {})) values[Number(id)] = await toRendered(blobs, stored)
  }
  const rendered = await deps.pdfWork.renderSignedPdf({
    originalPdf: original,
    fields: document.template.fields,
    values,
    certificate: {
      documentId,
      title: document.title,
      orgName: document.orgName,
      sentBy: sentBy(trail),
      originalSha256: document.template.pdfSha256,
      completedAt: document.completedAt,
      signers: people.map((signer) => certificateSigner(signer, trail)),
      copiesTo: (document.cc ?? []).map((copy) => (copy.name ? `${copy.name} <${copy.email}>` : copy.email)),
      auditTrail: trail.map((e) => ({ seq: e.seq, type: e.type, occurredAt: e.occurredAt, actor: e.actorEmail, ip: e.ip })),
      auditHeadHash: chain.headHash,
      language,
    },
  })

  const sealed = await stageSeal(blobs, await deps.sealer.seal(rendered, { reason: `Signed by every party with Signet; sealed by ${deps.sealer.subjectName}` }))
  const { bytes } = sealed.blob
  const filename = signedPdfFilename(document.title)
  await db.transaction(async (tx) => {
    const sha256 = await storeFinalPdf(tx, blobs, documentId, sealed)
    if (!sha256) return // another process finished first
    await appendAuditEvents(tx, document, [
      {
        type: 'signed_pdf.created',
        occurredAt: clock.now(),
        authMethod: 'system',
        data: { sha256, bytes: bytes.byteLength, sealed_at: sealed.sealedAt.toISOString(), tsa: sealed.tsaName },
      },
    ])
    await enqueueMail(
      tx,
      people.map((signer) => ({
        orgId: document.orgId,
        documentId,
        to: signer.email,
        attachment: { sha256, filename },
        ...completedMail({ orgName: document.orgName, title: document.title, signerName: signer.name, signerCount: people.length, language }),
      })),
    )
    // Copy recipients (cc) hear of the document for the first time now, with the PDF.
    await enqueueMail(
      tx,
      (document.cc ?? []).map((copy) => ({
        orgId: document.orgId,
        documentId,
        to: copy.email,
        attachment: { sha256, filename },
        ...completedMail({
          orgName: document.orgName,
          title: document.title,
          signerName: copy.name,
          signerCount: people.length,
          copy: true,
          language,
        }),
      })),
    )
  })
  deps.mail.kick()
}

async function toRendered(blobs: BlobStore, stored: StoredFieldValue): Promise<RenderedFieldValue> {
  switch (stored.type) {
    case 'signature':
    case 'initials': {
      const png = await blobs.get(stored.imageSha256)
      if (!png) throw new Error(`signature image ${stored.imageSha256} is missing`)
      return { type: stored.type, png }
    }
    case 'date':
    case 'text':
    case 'email':
    case 'name':
    case 'radio':
    case 'dropdown':
    case 'number':
    case 'checkbox':
      return stored
  }
}

function certificateSigner(signer: typeof signers.$inferSelect, trail: AuditEvent[]): CertificateSigner {
  const signedEvent = trail.find((e) => e.signerId === signer.id && e.type === 'document.signed')
  const authMethod = authMethodOf(signer)
  return {
    name: signer.name,
    email: signer.email,
    role: signer.role,
    roleName: signer.roleName,
    authMethod,
    ip: signedEvent?.ip ?? null,
    userAgent: signedEvent?.userAgent ?? null,
    viewedAt: signer.viewedAt,
    signedAt: signer.signedAt,
  }
}

import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm'
import type { BlobStore } from '../adapters/blob-store.ts'
import type { Clock } from '../adapters/clock.ts'
import { appendAuditEvents, checkAuditChain, readAuditTrail, type AuditEvent, type AuthMethod } from '../audit/audit-trail.ts'
import type { Db } from '../db/client.ts'
import { documents, orgs, signers, templates, type StoredFieldValue } from '../db/schema.ts'
import { startBackgroundLoop, type BackgroundLoop } from '../lib/background-loop.ts'
import type { Logger } from '../lib/logger.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { completedMail } from '../mail/templates.ts'
import { authMethodOf } from './locked-state.ts'
import { renderSignedPdf, type CertificateSigner, type RenderedFieldValue } from './signed-pdf.ts'

/** A render in flight holds its document this long; a crash mid-render makes it due again afterwards. */
const LEASE_MS = 2 * 60_000
const retryDelayMs = (attempts: number): number => Math.min(10_000 * 2 ** (attempts - 1), 3_600_000)
const BATCH_SIZE = 4

interface JobDeps {
  db: Db
  blobs: BlobStore
  clock: Clock
  logger: Logger
  /** Kicked after a signed PDF is stored, so the completion mails leave at once. */
  mail: { kick(): void }
}

const AUTH_METHOD_LABELS: Partial<Record<AuthMethod, string>> = {
  email_link: 'E-mail link',
  'email_link+email_code': 'E-mail link + one-time e-mail code',
}

/** The filename a signed PDF is downloaded and attached under. */
export const signedPdfFilename = (title: string): string => `${title.replace(/[^\p{L}\p{N} ._-]+/gu, '').trim().slice(0, 100) || 'document'} (signed).pdf`

/**
 * Produces the flattened signed PDF of each completed document in the background, so
 * the last signer's request does not wait for it. Durable: the work is "completed
 * documents without a signed PDF", claimed with a lease, so several processes share it
 * and a crash only delays it.
 */
export function startSignedPdfRenderer(deps: JobDeps & { pollMs: number }): BackgroundLoop {
  const { db, clock } = deps
  const claimDue = async () => {
    const now = clock.now()
    const due = db
      .select({ id: documents.id })
      .from(documents)
      .where(and(eq(documents.status, 'completed'), isNull(documents.signedPdfSha256), lte(documents.nextRenderAt, now)))
      .orderBy(asc(documents.nextRenderAt))
      .limit(BATCH_SIZE)
      .for('update', { skipLocked: true })
    return db
      .update(documents)
      .set({ renderAttempts: sql`${documents.renderAttempts} + 1`, nextRenderAt: new Date(now.getTime() + LEASE_MS) })
      .where(inArray(documents.id, due))
      .returning({ id: documents.id, attempts: documents.renderAttempts })
  }

  const work = async (stopping: () => boolean) => {
    for (;;) {
      const claimed = await claimDue()
      for (const { id, attempts } of claimed) {
        try {
          await produceSignedPdf(deps, id)
        } catch (error) {
          deps.logger.error({ err: error, documentId: id, attempts }, 'rendering the signed PDF failed; will retry')
          await db
            .update(documents)
            .set({ nextRenderAt: new Date(clock.now().getTime() + retryDelayMs(attempts)) })
            .where(eq(documents.id, id))
        }
      }
      if (claimed.length < BATCH_SIZE || stopping()) return
    }
  }
  return startBackgroundLoop({ name: 'signed PDF renderer', pollMs: deps.pollMs, logger: deps.logger, work })
}

/** Renders, stores and announces one document's signed PDF. */
async function produceSignedPdf(deps: JobDeps, documentId: string): Promise<void> {
  const { db, blobs, clock } = deps
  const [document] = await db
    .select({ id: documents.id, orgId: documents.orgId, title: documents.title, completedAt: documents.completedAt, orgName: orgs.name, template: templates })
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

  const values: (RenderedFieldValue | undefined)[] = document.template.fields.map(() => undefined)
  for (const signer of people) {
    for (const [id, stored] of Object.entries(signer.fieldValues ?? {})) values[Number(id)] = await toRendered(blobs, stored)
  }
  const bytes = await renderSignedPdf({
    originalPdf: original,
    fields: document.template.fields,
    values,
    certificate: {
      documentId,
      title: document.title,
      orgName: document.orgName,
      originalSha256: document.template.pdfSha256,
      completedAt: document.completedAt,
      signers: people.map((signer) => certificateSigner(signer, trail)),
      auditTrail: trail.map((e) => ({ seq: e.seq, type: e.type, occurredAt: e.occurredAt, actor: e.actorEmail, ip: e.ip })),
      auditHeadHash: chain.headHash,
    },
  })

  const filename = signedPdfFilename(document.title)
  await db.transaction(async (tx) => {
    const sha256 = await blobs.put(tx, bytes)
    const [stored] = await tx
      .update(documents)
      .set({ signedPdfSha256: sha256, nextRenderAt: null })
      .where(and(eq(documents.id, documentId), isNull(documents.signedPdfSha256)))
      .returning({ id: documents.id })
    if (!stored) return // another process finished first
    await appendAuditEvents(tx, document, [{ type: 'signed_pdf.created', occurredAt: clock.now(), authMethod: 'system', data: { sha256, bytes: bytes.byteLength } }])
    await enqueueMail(
      tx,
      people.map((signer) => ({
        orgId: document.orgId,
        documentId,
        to: signer.email,
        attachment: { sha256, filename },
        ...completedMail({ orgName: document.orgName, title: document.title, signerName: signer.name, signerCount: people.length }),
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
    authMethod: AUTH_METHOD_LABELS[authMethod] ?? authMethod,
    ip: signedEvent?.ip ?? null,
    userAgent: signedEvent?.userAgent ?? null,
    viewedAt: signer.viewedAt,
    signedAt: signer.signedAt,
  }
}

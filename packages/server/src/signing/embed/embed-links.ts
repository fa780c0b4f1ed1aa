import { and, count, eq, gt, isNull } from 'drizzle-orm'
import { Type, type Static } from 'typebox'
import type { Actor } from '../../actors/actor.ts'
import { appendAuditEvents } from '../../audit/audit-trail.ts'
import type { Db } from '../../db/client.ts'
import { auditEvents, documents, embedLinks, orgs, signers, templates } from '../../db/schema.ts'
import { findDocument } from '../../documents/find-document.ts'
import { AppError, invalid, notFound } from '../../errors.ts'
import { randomToken, sha256Hex } from '../../lib/crypto.ts'
import { isUuid } from '../../lib/ids.ts'
import type { Services } from '../../services.ts'
import { forSigner } from '../i18n/error-texts.ts'
import { actorOf, type RequestMeta } from '../locked-state.ts'
import { documentColumns, signerColumns, templateColumns, type SignerContext } from '../signer-context.ts'
import { isPastExpiry } from '../signing-rules.ts'
import { embedOriginsOf } from './embed-origins.ts'

/*
 * Embedded signing (extension): the integrator's server asks for a single-use URL for one signer
 * (POST /api/v1/documents/{id}/signers/{signer_id}/embed) and puts it in a frame of its own app.
 * The URL works once, for EMBED_URL_MINUTES: its first GET mints the page's own capability and
 * redirects to /sign/<capability>, where the signer page and its requests work as with the
 * e-mailed token. Both secrets are kept only as SHA-256 hashes.
 */

export const EMBED_URL_MINUTES = 5
/** How long the embedded page (and its reloads) stays usable once opened: as long as an e-mail-code session. */
export const EMBED_PAGE_HOURS = 12

/** The single-use URL's token: 32 random bytes in base64url, as the e-mailed links'. */
const EMBED_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/
/** The page capability: its prefix keeps it apart from an e-mailed token under /sign/. */
const PAGE_TOKEN_PREFIX = 'em_'
const PAGE_TOKEN_SHAPE = /^em_[A-Za-z0-9_-]{43}$/

export const isEmbeddedPageToken = (token: string): boolean => PAGE_TOKEN_SHAPE.test(token)

/**
 * An embed URL or embedded page that no longer works. The signer reached it from the
 * integrator's app, not from an e-mail: the words send them back there.
 */
export const invalidEmbeddedLink = () =>
  forSigner(
    notFound('This signing link has been used or has expired. Go back to the app that showed you the signing page and open it again from there.'),
    'status.invalidLink.embeddedMessage',
  )

/**
 * Refused opens recorded per signer and document: enough to show a reloading frame or a replayed
 * URL, without letting a loop of reloads grow the trail without end.
 */
export const MAX_RECORDED_REFUSALS = 20

export const EmbedRequest = Type.Object(
  {
    signer_authenticated: Type.Optional(
      Type.Boolean({
        description:
          'true: your app authenticated this signer itself. Required for a signer with auth_required (the embedded page skips the e-mailed code); recorded in the audit trail with the credential that said so',
      }),
    ),
    parent_origin: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          "the origin of the page that frames the signer page, one of the workspace's embed origins (Settings → Embedded signing): the page posts signet:loaded, signet:signed, signet:declined, signet:error and signet:resize to it. Without it the page posts nothing",
      }),
    ),
  },
  { additionalProperties: false },
)
export type EmbedRequest = Static<typeof EmbedRequest>

export const EmbedUrl = Type.Object(
  {
    url: Type.String({
      description: `opens the signer's page once, within ${EMBED_URL_MINUTES} minutes; a used or expired URL shows "This link does not work"`,
    }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
)
export type EmbedUrl = Static<typeof EmbedUrl>

const signerNotFound = () => notFound('Signer not found.')

/** Why this signer cannot be opened now, in the integrator's words; null when they can. */
function refusal(document: typeof documents.$inferSelect, signer: typeof signers.$inferSelect, now: Date): AppError | null {
  if (document.status !== 'sent')
    return new AppError('conflict', `This document is ${document.status}: only a document out for signature can be signed embedded.`)
  if (isPastExpiry(document, now)) return new AppError('conflict', 'This document has expired: it can no longer be signed.')
  if (signer.status === 'signed' || signer.status === 'declined') return new AppError('conflict', `${signer.email} has already ${signer.status}.`)
  if (signer.invitedAt === null)
    return new AppError('conflict', `${signer.email} signs at a later step of the signing order: their turn comes when the step before is done.`)
  return null
}

/**
 * Mints a signer's single-use embed URL. `vouchedBy` names the credential that asked
 * (`api_key sgn_live_1a2b3c4d`): it is recorded with every audit event of the embedded page.
 */
export async function createEmbedUrl(
  services: Pick<Services, 'db' | 'clock' | 'config'>,
  actor: Actor,
  target: { documentId: string; signerId: string; vouchedBy: string },
  input: EmbedRequest,
): Promise<EmbedUrl> {
  const { db, clock } = services
  const document = await findDocument(db, actor.orgId, target.documentId)
  if (!isUuid(target.signerId)) throw signerNotFound()
  const [signer] = await db
    .select()
    .from(signers)
    .where(and(eq(signers.id, target.signerId), eq(signers.documentId, document.id)))
  if (!signer) throw signerNotFound()
  const now = clock.now()
  const refused = refusal(document, signer, now)
  if (refused) throw refused
  if (signer.authRequired && input.signer_authenticated !== true) {
    throw new AppError(
      'forbidden',
      `${signer.email} must prove their e-mail address with a code (auth_required). An embedded page skips that step only when your app authenticated the signer itself: send "signer_authenticated": true.`,
      {},
      {},
      '/signer_authenticated',
    )
  }
  if (input.parent_origin !== undefined && !(await embedOriginsOf(db, actor.orgId)).includes(input.parent_origin)) {
    throw invalid(
      `"${input.parent_origin}" is not one of this workspace's embed origins: add it in Settings → Embedded signing (PUT /api/v1/settings/embed).`,
      {
        field: '/parent_origin',
      },
    )
  }
  const token = randomToken(32)
  const expiresAt = new Date(now.getTime() + EMBED_URL_MINUTES * 60_000)
  await db.insert(embedLinks).values({
    orgId: actor.orgId,
    signerId: signer.id,
    tokenHash: sha256Hex(token),
    expiresAt,
    vouchedBy: target.vouchedBy,
    signerAuthenticated: input.signer_authenticated === true,
    parentOrigin: input.parent_origin ?? null,
  })
  return { url: `${services.config.publicUrl}/sign/embed/${token}`, expires_at: expiresAt.toISOString() }
}

/** The first use of an embed URL: the page's capability; otherwise it does not work, and its page may be framed by `frameAncestors`. */
export type EmbedOpening = { opened: true; pageToken: string } | { opened: false; frameAncestors: string[] }

/**
 * Uses an embed URL: only its first GET within its five minutes opens the page (the update
 * that marks it used is the one decision, so two racing GETs cannot both open it); the row
 * keeps when and from where. The signer's view is recorded as the e-mailed page's is, when
 * the page has rendered (POST /sign/<capability>/view): a frame the browser refused to show
 * (an origin not on the list) uses the URL up but records no view.
 */
export async function openEmbedUrl(services: Pick<Services, 'db' | 'clock'>, token: string, meta: RequestMeta): Promise<EmbedOpening> {
  if (!EMBED_TOKEN_SHAPE.test(token)) return { opened: false, frameAncestors: [] }
  const { db, clock } = services
  const now = clock.now()
  const [link] = await db
    .select({
      id: embedLinks.id,
      orgId: embedLinks.orgId,
      signerId: embedLinks.signerId,
      usedAt: embedLinks.usedAt,
      expiresAt: embedLinks.expiresAt,
      vouchedBy: embedLinks.vouchedBy,
      signerAuthenticated: embedLinks.signerAuthenticated,
    })
    .from(embedLinks)
    .where(eq(embedLinks.tokenHash, sha256Hex(token)))
  if (!link) return { opened: false, frameAncestors: [] }
  const pageToken = PAGE_TOKEN_PREFIX + randomToken(32)
  const [used] = await db
    .update(embedLinks)
    .set({
      usedAt: now,
      usedIp: meta.ip,
      usedUserAgent: meta.userAgent,
      pageTokenHash: sha256Hex(pageToken),
      pageExpiresAt: new Date(now.getTime() + EMBED_PAGE_HOURS * 3_600_000),
    })
    .where(and(eq(embedLinks.id, link.id), isNull(embedLinks.usedAt), gt(embedLinks.expiresAt, now)))
    .returning({ id: embedLinks.id })
  if (used) return { opened: true, pageToken }
  // Unused and within its minutes when read, yet not taken by the update: a concurrent open used it.
  const reason = link.usedAt === null && link.expiresAt <= now ? 'expired' : 'used'
  const frameAncestors = await embedOriginsOf(db, link.orgId)
  await recordRefusedOpen(db, { ...link, frameAncestors }, reason, meta, now)
  return { opened: false, frameAncestors }
}

/**
 * A used or expired embed URL opened again goes into the document's audit trail (hash-chained,
 * under the document's row lock) as signer.embed_url_refused, with the embedded page's data
 * (who vouched) and the reason. Not a webhook event: webhooks and the live stream carry the four
 * the contract names. At most MAX_RECORDED_REFUSALS per signer are kept.
 */
async function recordRefusedOpen(
  db: Db,
  link: { orgId: string; signerId: string; vouchedBy: string; signerAuthenticated: boolean; frameAncestors: string[] },
  reason: 'used' | 'expired',
  meta: RequestMeta,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [signer] = await tx
      .select({ ...signerColumns, documentId: signers.documentId })
      .from(signers)
      .where(eq(signers.id, link.signerId))
    if (!signer) return
    const [document] = await tx
      .select({ id: documents.id, orgId: documents.orgId })
      .from(documents)
      .where(and(eq(documents.id, signer.documentId), eq(documents.orgId, link.orgId)))
      .for('update')
    if (!document) return
    const [recorded] = await tx
      .select({ refusals: count() })
      .from(auditEvents)
      .where(and(eq(auditEvents.documentId, document.id), eq(auditEvents.signerId, signer.id), eq(auditEvents.type, 'signer.embed_url_refused')))
    if ((recorded?.refusals ?? 0) >= MAX_RECORDED_REFUSALS) return
    const embedded = { vouchedBy: link.vouchedBy, signerAuthenticated: link.signerAuthenticated, parentOrigin: null, frameAncestors: link.frameAncestors }
    const actor = actorOf(signer, meta, embedded)
    await appendAuditEvents(tx, document, [{ type: 'signer.embed_url_refused', occurredAt: now, ...actor, data: { ...actor.data, reason } }])
  })
}

/** Loads an embedded page's signer by its capability (never past its EMBED_PAGE_HOURS): a SignerContext with `embedded` set. */
export async function loadEmbeddedPage(services: Pick<Services, 'db' | 'clock'>, pageToken: string): Promise<SignerContext> {
  if (!PAGE_TOKEN_SHAPE.test(pageToken)) throw invalidEmbeddedLink()
  const [row] = await services.db
    .select({
      signer: signerColumns,
      document: documentColumns,
      template: templateColumns,
      orgName: orgs.name,
      workspaceLanguage: orgs.signerLanguage,
      frameAncestors: orgs.embedOrigins,
      link: { vouchedBy: embedLinks.vouchedBy, signerAuthenticated: embedLinks.signerAuthenticated, parentOrigin: embedLinks.parentOrigin },
    })
    .from(embedLinks)
    .innerJoin(signers, eq(signers.id, embedLinks.signerId))
    .innerJoin(documents, eq(documents.id, signers.documentId))
    .innerJoin(templates, eq(templates.id, documents.templateId))
    .innerJoin(orgs, eq(orgs.id, documents.orgId))
    .where(and(eq(embedLinks.pageTokenHash, sha256Hex(pageToken)), gt(embedLinks.pageExpiresAt, services.clock.now())))
  if (!row) throw invalidEmbeddedLink()
  const { frameAncestors, link, ...context } = row
  // An origin taken off the list since the URL was made no longer receives the page's events.
  const parentOrigin = link.parentOrigin !== null && frameAncestors.includes(link.parentOrigin) ? link.parentOrigin : null
  return { ...context, embedded: { vouchedBy: link.vouchedBy, signerAuthenticated: link.signerAuthenticated, parentOrigin, frameAncestors } }
}

/**
 * Where the "does not work" page of an embedded page past its hours may be shown: its workspace's
 * embed origins, so the signer sees it inside the integrator's frame (none for an unknown capability).
 */
export async function embeddedPageFrameAncestors(db: Db, pageToken: string): Promise<string[]> {
  if (!PAGE_TOKEN_SHAPE.test(pageToken)) return []
  const [row] = await db
    .select({ frameAncestors: orgs.embedOrigins })
    .from(embedLinks)
    .innerJoin(orgs, eq(orgs.id, embedLinks.orgId))
    .where(eq(embedLinks.pageTokenHash, sha256Hex(pageToken)))
  return row?.frameAncestors ?? []
}

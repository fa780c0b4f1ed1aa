import { randomInt } from 'node:crypto'
import { and, eq, gt } from 'drizzle-orm'
import { appendAuditEvents } from '../audit/audit-trail.ts'
import { signerCodes, signers, signingSessions } from '../db/schema.ts'
import { AppError, invalid } from '../errors.ts'
import { digestsEqual, randomToken, sha256Hex } from '../lib/crypto.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { codeMail } from '../mail/templates.ts'
import type { Services } from '../services.ts'
import { actorOf, lockSignerState, type RequestMeta } from './locked-state.ts'
import type { SignerContext } from './signer-context.ts'
import { assertOpen } from './signing-rules.ts'

export const CODE_VALID_MINUTES = 10
export const CODE_MAX_ATTEMPTS = 5
export const CODE_RESEND_SECONDS = 60
/** How long a browser that proved the code may keep the document open. */
export const SESSION_HOURS = 12

/*
 * A 6-digit code has only a million values, so its hash protects a database
 * reader little; what protects the signer is the 10-minute life, the five attempts
 * and the code being salted with the signer's id (no table works across signers).
 */
const codeHash = (signerId: string, code: string) => sha256Hex(`${signerId}:${code}`)

export const maskEmail = (email: string): string => {
  const [local = '', domain = ''] = email.split('@')
  return `${local.slice(0, 1)}***@${domain}`
}

/** E-mails a fresh code (replacing any earlier one), at most once per CODE_RESEND_SECONDS. */
export async function sendSigningCode(
  services: Pick<Services, 'db' | 'clock' | 'mail'>,
  context: SignerContext,
  meta: RequestMeta,
): Promise<{ sent_to: string; resend_in_seconds: number }> {
  const now = services.clock.now()
  if (!context.signer.authRequired) throw invalid('This signing link does not need an e-mail code.')
  await services.db.transaction(async (tx) => {
    const state = await lockSignerState(tx, context)
    assertOpen(state, now)
    const [previous] = await tx.select({ sentAt: signerCodes.sentAt }).from(signerCodes).where(eq(signerCodes.signerId, state.signer.id))
    const wait = previous ? Math.ceil(CODE_RESEND_SECONDS - (now.getTime() - previous.sentAt.getTime()) / 1000) : 0
    if (wait > 0) throw new AppError('rate_limited', `A code was just sent. Wait ${wait} seconds before asking for a new one.`)

    const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
    const row = { codeHash: codeHash(state.signer.id, code), expiresAt: new Date(now.getTime() + CODE_VALID_MINUTES * 60_000), failedAttempts: 0, sentAt: now }
    await tx
      .insert(signerCodes)
      .values({ signerId: state.signer.id, ...row })
      .onConflictDoUpdate({ target: signerCodes.signerId, set: row })
    await enqueueMail(tx, [
      {
        orgId: state.document.orgId,
        documentId: state.document.id,
        to: state.signer.email,
        sensitive: true,
        ...codeMail({ title: state.document.title, signerName: state.signer.name, code, validMinutes: CODE_VALID_MINUTES }),
      },
    ])
    await appendAuditEvents(tx, state.document, [{ type: 'signer.code_sent', occurredAt: now, ...actorOf(state.signer, meta) }])
  })
  services.mail.kick()
  return { sent_to: maskEmail(context.signer.email), resend_in_seconds: CODE_RESEND_SECONDS }
}

type Verification = { ok: true; sessionSecret: string } | { ok: false; error: AppError }

/**
 * Checks a code; on success opens a signing session for this browser and returns its
 * secret (for a cookie). A wrong attempt is counted even though the request fails.
 */
export async function verifySigningCode(
  services: Pick<Services, 'db' | 'clock'>,
  context: SignerContext,
  code: string,
  meta: RequestMeta,
): Promise<{ sessionSecret: string; expiresAt: Date }> {
  const now = services.clock.now()
  if (!context.signer.authRequired) throw invalid('This signing link does not need an e-mail code.')
  if (!/^\d{6}$/.test(code)) throw invalid('Enter the 6 digits of the code from your e-mail.')
  const expiresAt = new Date(now.getTime() + SESSION_HOURS * 3_600_000)
  const result = await services.db.transaction(async (tx): Promise<Verification> => {
    const state = await lockSignerState(tx, context)
    assertOpen(state, now)
    const [issued] = await tx.select().from(signerCodes).where(eq(signerCodes.signerId, state.signer.id))
    if (!issued) return { ok: false, error: invalid('Ask for a code first: select "Email me a code".') }
    if (issued.failedAttempts >= CODE_MAX_ATTEMPTS) {
      return { ok: false, error: new AppError('rate_limited', 'Too many wrong codes. Ask for a new code.') }
    }
    if (issued.expiresAt.getTime() <= now.getTime()) return { ok: false, error: invalid('This code has expired. Ask for a new code.') }
    const actor = actorOf(state.signer, meta)
    if (!digestsEqual(codeHash(state.signer.id, code), issued.codeHash)) {
      const left = CODE_MAX_ATTEMPTS - issued.failedAttempts - 1
      await tx
        .update(signerCodes)
        .set({ failedAttempts: issued.failedAttempts + 1 })
        .where(eq(signerCodes.signerId, state.signer.id))
      await appendAuditEvents(tx, state.document, [{ type: 'signer.code_rejected', occurredAt: now, ...actor, data: { attempts_left: left } }])
      const hint = left > 0 ? `${left} attempt${left === 1 ? '' : 's'} left.` : 'Ask for a new code.'
      return { ok: false, error: invalid(`That code is not correct. ${hint}`) }
    }
    const sessionSecret = randomToken(32)
    await tx.delete(signerCodes).where(eq(signerCodes.signerId, state.signer.id))
    await tx.insert(signingSessions).values({ signerId: state.signer.id, secretHash: sha256Hex(sessionSecret), expiresAt })
    await tx.update(signers).set({ authVerified: true }).where(eq(signers.id, state.signer.id))
    await appendAuditEvents(tx, state.document, [{ type: 'signer.code_verified', occurredAt: now, ...actor }])
    return { ok: true, sessionSecret }
  })
  if (!result.ok) throw result.error
  return { sessionSecret: result.sessionSecret, expiresAt }
}

/** Whether this browser may see the document: always without auth_required, else with a live session. */
export async function hasSigningAccess(
  services: Pick<Services, 'db' | 'clock'>,
  context: SignerContext,
  sessionSecret: string | undefined,
): Promise<boolean> {
  if (!context.signer.authRequired) return true
  if (!sessionSecret) return false
  const [session] = await services.db
    .select({ id: signingSessions.id })
    .from(signingSessions)
    .where(
      and(
        eq(signingSessions.secretHash, sha256Hex(sessionSecret)),
        eq(signingSessions.signerId, context.signer.id),
        gt(signingSessions.expiresAt, services.clock.now()),
      ),
    )
  return session !== undefined
}

export const codeRequired = () => new AppError('forbidden', 'Enter the code we e-mailed you before opening this document.')

import { randomInt } from 'node:crypto'
import { and, desc, eq, gt, inArray } from 'drizzle-orm'
import { appendAuditEvents, type AuditEventType } from '../audit/audit-trail.ts'
import type { Db } from '../db/client.ts'
import { auditEvents, signerCodes, signers, signingSessions } from '../db/schema.ts'
import { AppError, invalid } from '../errors.ts'
import { digestsEqual, randomToken, sha256Hex } from '../lib/crypto.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { codeMail } from '../mail/templates.ts'
import { forSigner } from './i18n/error-texts.ts'
import type { SignerLanguage } from './i18n/languages.ts'
import type { Services } from '../services.ts'
import { actorOf, lockSignerState, type RequestMeta } from './locked-state.ts'
import type { SignerContext } from './signer-context.ts'
import { assertOpen } from './signing-rules.ts'

export const CODE_VALID_MINUTES = 10
export const CODE_MAX_ATTEMPTS = 5
export const CODE_RESEND_SECONDS = 60
/*
 * What one signer may spend in any 24 hours, however many codes they ask for: someone who
 * holds the link but not the mailbox gets WRONG_CODES_PER_DAY guesses at a million values
 * (1 in 100,000 a day, instead of 7,200 guesses with a new code every minute), and the
 * mailbox gets at most CODES_PER_DAY code e-mails. A signer who mistypes, lets a code expire
 * or opens the link on a second device needs a fraction of either.
 */
export const CODES_PER_DAY = 5
export const WRONG_CODES_PER_DAY = 10
const DAY_MS = 24 * 3_600_000
/** How long a browser that proved the code may keep the document open. */
export const SESSION_HOURS = 12

/*
 * A 6-digit code has only a million values, so its hash protects a database
 * reader little; what protects the signer is the 10-minute life, the five attempts
 * (ten a day), and the code being salted with the signer's id (no table works across signers).
 */
const codeHash = (signerId: string, code: string) => sha256Hex(`${signerId}:${code}`)

export const maskEmail = (email: string): string => {
  const [local = '', domain = ''] = email.split('@')
  return `${local.slice(0, 1)}***@${domain}`
}

/** When the signer's code e-mails and wrong codes of the last 24 hours happened, newest first. */
interface CodeHistory {
  sent: Date[]
  rejected: Date[]
}

const COUNTED_EVENTS: AuditEventType[] = ['signer.code_sent', 'signer.code_rejected']

/*
 * Read from the audit trail, which records every code sent and every wrong code: a rolling
 * window with no counter to keep in step. Both events are appended under the document row
 * lock, so a count taken under that lock is exact.
 */
async function codeHistory(db: Db, signerId: string, documentId: string, now: Date): Promise<CodeHistory> {
  const rows = await db
    .select({ type: auditEvents.type, occurredAt: auditEvents.occurredAt })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.documentId, documentId),
        eq(auditEvents.signerId, signerId),
        inArray(auditEvents.type, COUNTED_EVENTS),
        gt(auditEvents.occurredAt, new Date(now.getTime() - DAY_MS)),
      ),
    )
    .orderBy(desc(auditEvents.seq))
  const times = (type: AuditEventType) => rows.filter((row) => row.type === type).map((row) => row.occurredAt)
  return { sent: times('signer.code_sent'), rejected: times('signer.code_rejected') }
}

/** When a 24-hour allowance of `cap`, spent at `times` (newest first), has room again; null while it has. */
function refilledAt(times: Date[], cap: number): Date | null {
  const oldestCounted = times[cap - 1]
  return oldestCounted ? new Date(oldestCounted.getTime() + DAY_MS) : null
}

/**
 * Until when the code step is shut: a signer holding a usable code needs guesses left;
 * one without (or asking for another) needs guesses and code e-mails left.
 */
function lockEnd(history: CodeHistory, hasUsableCode: boolean): Date | null {
  const guessing = refilledAt(history.rejected, WRONG_CODES_PER_DAY)
  const sending = refilledAt(history.sent, CODES_PER_DAY)
  if (hasUsableCode || !sending) return guessing
  return guessing && guessing > sending ? guessing : sending
}

const isUsable = (code: typeof signerCodes.$inferSelect | undefined, now: Date) =>
  code !== undefined && code.failedAttempts < CODE_MAX_ATTEMPTS && code.expiresAt.getTime() > now.getTime()

/** What the signer reads (API error and signing page alike) once the daily allowance is spent. */
export const codeStepLockedMessage = (orgName: string, until: Date): string =>
  `Too many codes were asked for or entered wrongly on this link. For your security, no more codes can be sent or entered until ${until.toUTCString()}. ` +
  `Contact ${orgName}, who sent you this document, if you need to sign sooner or did not make these attempts yourself.`

const codeStepLocked = (orgName: string, until: Date) =>
  forSigner(new AppError('rate_limited', codeStepLockedMessage(orgName, until)), 'status.locked.message', { date: until, org: orgName })
const codeNotNeeded = () => forSigner(invalid('This signing link does not need an e-mail code.'), 'error.codeNotNeeded')

/** For the signing page: until when this link's code step is shut, or null when the signer can go on. */
export async function codeStepLockedUntil(services: Pick<Services, 'db' | 'clock'>, context: SignerContext): Promise<Date | null> {
  const now = services.clock.now()
  const [issued] = await services.db.select().from(signerCodes).where(eq(signerCodes.signerId, context.signer.id))
  return lockEnd(await codeHistory(services.db, context.signer.id, context.document.id, now), isUsable(issued, now))
}

/** E-mails a fresh code (replacing any earlier one), at most once per CODE_RESEND_SECONDS. */
export async function sendSigningCode(
  services: Pick<Services, 'db' | 'clock' | 'mail'>,
  context: SignerContext,
  meta: RequestMeta,
  /** The mail's language: the page's, which asked for the code (signing/i18n). */
  language: SignerLanguage,
): Promise<{ sent_to: string; resend_in_seconds: number }> {
  const now = services.clock.now()
  if (!context.signer.authRequired) throw codeNotNeeded()
  await services.db.transaction(async (tx) => {
    const state = await lockSignerState(tx, context)
    assertOpen(state, now)
    // Asking for a new code needs e-mails left, whether or not the current code is still usable.
    const lockedUntil = lockEnd(await codeHistory(tx, state.signer.id, state.document.id, now), false)
    if (lockedUntil) throw codeStepLocked(context.orgName, lockedUntil)
    const [previous] = await tx.select({ sentAt: signerCodes.sentAt }).from(signerCodes).where(eq(signerCodes.signerId, state.signer.id))
    const wait = previous ? Math.ceil(CODE_RESEND_SECONDS - (now.getTime() - previous.sentAt.getTime()) / 1000) : 0
    if (wait > 0) {
      throw forSigner(new AppError('rate_limited', `A code was just sent. Wait ${wait} seconds before asking for a new one.`), 'error.codeWait', {
        seconds: wait,
      })
    }

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
        ...codeMail({ title: state.document.title, signerName: state.signer.name, code, validMinutes: CODE_VALID_MINUTES, language }),
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
  if (!context.signer.authRequired) throw codeNotNeeded()
  if (!/^\d{6}$/.test(code)) throw forSigner(invalid('Enter the 6 digits of the code from your e-mail.'), 'error.codeDigits')
  const expiresAt = new Date(now.getTime() + SESSION_HOURS * 3_600_000)
  const result = await services.db.transaction(async (tx): Promise<Verification> => {
    const state = await lockSignerState(tx, context)
    assertOpen(state, now)
    const [issued] = await tx.select().from(signerCodes).where(eq(signerCodes.signerId, state.signer.id))
    const history = await codeHistory(tx, state.signer.id, state.document.id, now)
    const lockedUntil = lockEnd(history, isUsable(issued, now))
    if (lockedUntil) return { ok: false, error: codeStepLocked(context.orgName, lockedUntil) }
    if (!issued) return { ok: false, error: forSigner(invalid('Ask for a code first: select "Email me a code".'), 'error.codeFirst') }
    if (issued.failedAttempts >= CODE_MAX_ATTEMPTS) {
      return { ok: false, error: forSigner(new AppError('rate_limited', 'Too many wrong codes. Ask for a new code.'), 'error.codeTooManyWrong') }
    }
    if (issued.expiresAt.getTime() <= now.getTime()) {
      return { ok: false, error: forSigner(invalid('This code has expired. Ask for a new code.'), 'error.codeExpired') }
    }
    const actor = actorOf(state.signer, meta)
    if (!digestsEqual(codeHash(state.signer.id, code), issued.codeHash)) {
      const failedAttempts = issued.failedAttempts + 1
      const rejected = [now, ...history.rejected]
      const left = Math.min(CODE_MAX_ATTEMPTS - failedAttempts, WRONG_CODES_PER_DAY - rejected.length)
      await tx.update(signerCodes).set({ failedAttempts }).where(eq(signerCodes.signerId, state.signer.id))
      await appendAuditEvents(tx, state.document, [{ type: 'signer.code_rejected', occurredAt: now, ...actor, data: { attempts_left: left } }])
      const lockedNow = lockEnd({ ...history, rejected }, failedAttempts < CODE_MAX_ATTEMPTS)
      if (lockedNow) return { ok: false, error: codeStepLocked(context.orgName, lockedNow) }
      const hint = left > 0 ? `${left} attempt${left === 1 ? '' : 's'} left.` : 'Ask for a new code.'
      return { ok: false, error: forSigner(invalid(`That code is not correct. ${hint}`), 'error.codeWrong', { left: Math.max(left, 0) }) }
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

/** Whether this browser may see the document: always without auth_required or on an embedded page, else with a live session. */
export async function hasSigningAccess(services: Pick<Services, 'db' | 'clock'>, context: SignerContext, sessionSecret: string | undefined): Promise<boolean> {
  // An embedded page's signer was authenticated by the integrator, who said so to open it (signing/embed).
  if (!context.signer.authRequired || context.embedded) return true
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

export const codeRequired = () => forSigner(new AppError('forbidden', 'Enter the code we e-mailed you before opening this document.'), 'error.codeRequired')

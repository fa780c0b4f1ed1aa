import { and, eq, inArray, isNotNull, isNull, lte, or, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { accountTokens, memberships, orgs, users } from '../db/schema.ts'
import { AppError, invalid } from '../errors.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { joinedWorkspaceMail } from '../mail/templates.ts'
import { normalizeEmail, type AccountServices, type Client } from './account-context.ts'
import { consumeToken, findLiveToken } from './account-tokens.ts'
import { consumeInvitation } from './invitations.ts'
import { dashboardLink, mailAlreadyRegistered, mailFinishSignUpLink, mailVerificationLink } from './account-mail.ts'
import type { SignUpBody } from './accounts.schemas.ts'
import { limitAccountMail } from './address-limits.ts'
import { BoundedWork, busyWithSignIns, type WorkPlace } from './bounded-work.ts'
import { cleanName, insertWorkspace, presentMe } from './me.ts'
import { checkNewPassword, withPasswordSlot } from './passwords.ts'
import { createSession, type NewSession } from './sessions.ts'

/**
 * Work done after the answer, per database: one task at a time (the embedded database runs
 * queries on the server's thread one after another, so /healthz waits behind whatever is
 * queued), at most AFTER_ANSWER_QUEUE waiting; a request that would queue more gets 503
 * before it is answered.
 */
const AFTER_ANSWER_QUEUE = 100
const afterAnswerWork = new WeakMap<Db, BoundedWork>()

/** Work whose duration would tell whether an address has an account, to run after the answer (AfterAnswer.start). */
export interface AfterAnswer {
  /** Runs `work` once the answer is sent; a failure is logged (the person sees no mail and tries again). */
  start(what: string, work: () => Promise<void>): void
  /** Gives the place back when the request ends without work for later. */
  release(): void
}

/**
 * Work whose duration would tell whether an address has an account (creating one, or mailing
 * a reset link) runs after the answer is sent: the answer takes as long either way. The place
 * is taken first, so a full queue is a 503 for known and unknown addresses alike.
 */
export function reserveAfterAnswer(services: Pick<AccountServices, 'db' | 'logger' | 'mail'>): AfterAnswer {
  let work = afterAnswerWork.get(services.db)
  if (!work) afterAnswerWork.set(services.db, (work = new BoundedWork({ concurrency: 1, queue: AFTER_ANSWER_QUEUE, busy: busyWithSignIns(2) })))
  const place: WorkPlace = work.enter()
  return {
    start(what, task) {
      place
        .run(async () => {
          // setImmediate: after the answer is written (the embedded database runs queries on this thread).
          await new Promise((resolve) => setImmediate(resolve))
          await task()
        })
        .then(
          () => services.mail.kick(),
          (error: unknown) => services.logger.error({ err: error }, `${what} failed`),
        )
    },
    release: place.release,
  }
}

/**
 * Sign-up answers the same for an address that has an account and one that has none, and as
 * fast: the answer goes once the request is checked and the password hashed; the account is
 * made after it (reserveAfterAnswer). What happens then depends on the address:
 * - no account: a new one, unconfirmed, with its own Free workspace, and a confirmation link;
 * - a confirmed account: only a "you already have an account" mail, nothing changes;
 * - an account still waiting for confirmation: it may be someone else's sign-up with this
 *   address (a pre-registration attack), so this sign-up's password, name and workspace name
 *   replace the pending ones, every confirmation link of the address dies, and the mail says
 *   to finish by choosing the password (replacePendingRegistration).
 * With an invitation token (from the invitation mail, which proves the address) the user is
 * created confirmed and joins that workspace before the answer.
 */
export async function signUp(services: AccountServices, body: SignUpBody, client: Client): Promise<{ message: string }> {
  const now = services.clock.now()
  const email = normalizeEmail(body.email)
  const name = cleanName(body.name, 'Your name', '/name')
  checkNewPassword(body.password, email)
  const workspaceName = body.workspace_name?.trim()
  if (!body.invitation_token && !workspaceName)
    throw invalid('Name your workspace (workspace_name): your team sees it on documents and in mails.', { field: '/workspace_name' })
  // The place for later first: when it cannot be had, the request costs nothing.
  const later = body.invitation_token ? undefined : reserveAfterAnswer(services)
  try {
    await withPasswordSlot(async (argon2) => {
      await limitAccountMail(services, client.ip)
      const invitation = body.invitation_token ? await findLiveToken(services.db, 'invitation', body.invitation_token, now) : null
      if (invitation && invitation.email !== email) {
        throw invalid('This invitation was sent to another address: sign up with the address it was sent to.', { field: '/email' })
      }
      const passwordHash = await argon2.hash(body.password)
      const account = { email, name, passwordHash, invitationToken: invitation ? body.invitation_token : undefined, workspaceName }
      const create = () => services.db.transaction((tx) => createAccount(tx, services.config, account, now))
      if (later) {
        later.start('sign-up', create)
      } else {
        // The invitation proves the address, so its holder learns nothing from the timing; the
        // account must exist when the answer arrives, because the page signs in right after it.
        await create()
        services.mail.kick()
      }
    })
  } finally {
    later?.release()
  }
  return { message: `Check your inbox at ${email}: we sent you an e-mail to continue.` }
}

interface NewAccount {
  email: string
  name: string
  passwordHash: string
  invitationToken: string | undefined
  workspaceName: string | undefined
}

/** The account and its first mail, a pending one replaced, or only the "you already have an account" mail. */
async function createAccount(tx: Db, config: AccountServices['config'], account: NewAccount, now: Date): Promise<void> {
  const { email, name, passwordHash, invitationToken } = account
  const [existing] = await tx.select().from(users).where(eq(users.email, email))
  if (existing) {
    if (!invitationToken && !existing.emailVerifiedAt && (await replacePendingRegistration(tx, config, existing.id, account, now))) return
    return mailAlreadyRegistered(tx, config, existing)
  }
  const [user] = await tx
    .insert(users)
    .values({ email, name, passwordHash, emailVerifiedAt: invitationToken ? now : null, passwordChangedAt: now, createdAt: now })
    .onConflictDoNothing({ target: users.email })
    .returning()
  if (!user) return mailAlreadyRegistered(tx, config, { email, name })
  if (invitationToken) {
    const offer = await consumeInvitation(tx, invitationToken, now)
    await tx.insert(memberships).values({ orgId: offer.orgId, userId: user.id, role: offer.role, createdAt: now })
    const [org] = await tx.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, offer.orgId))
    const mail = joinedWorkspaceMail({ name, workspaceName: org?.name ?? 'the workspace', loginLink: dashboardLink(config, 'login') })
    await enqueueMail(tx, [{ to: email, ...mail }])
  } else {
    await insertWorkspace(tx, { name: account.workspaceName ?? '', ownerId: user.id })
    await mailVerificationLink(tx, config, user, now)
  }
}

/**
 * A sign-up for an address whose account is not confirmed yet. Nobody has signed in to that
 * account (sign-in needs the confirmation), so its workspace is empty: this sign-up's password,
 * name and workspace name replace the pending ones, and the pending password stops working.
 * Every confirmation link of the address dies, and from now on the account is "contested"
 * (password_changed_at after created_at): it is confirmed only by choosing the password through
 * a mailed link (mailFinishSignUpLink), never by a one-click confirmation, because whoever
 * signed up last, the owner of the address or not, set the current password. False when the
 * account was confirmed meanwhile.
 */
async function replacePendingRegistration(tx: Db, config: AccountServices['config'], userId: string, account: NewAccount, now: Date): Promise<boolean> {
  // The links first, then the user: the order verifyEmail locks them in (no deadlock with a confirmation).
  await tx
    .update(accountTokens)
    .set({ usedAt: now })
    .where(and(eq(accountTokens.userId, userId), eq(accountTokens.purpose, 'verify_email'), isNull(accountTokens.usedAt)))
  const [replaced] = await tx
    .update(users)
    .set({
      passwordHash: account.passwordHash,
      name: account.name,
      // Strictly after created_at, even within the same millisecond: the mark of a contested sign-up.
      passwordChangedAt: sql`greatest(${now.toISOString()}::timestamptz, ${users.createdAt} + interval '1 millisecond')`,
      failedLogins: 0,
      lockedUntil: null,
    })
    .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
    .returning()
  if (!replaced) return false
  const ownWorkspaces = tx
    .select({ id: memberships.orgId })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), eq(memberships.role, 'owner')))
  await tx
    .update(orgs)
    .set({ name: cleanName(account.workspaceName ?? '', 'The workspace name') })
    .where(inArray(orgs.id, ownWorkspaces))
  await mailFinishSignUpLink(tx, config, replaced, now)
  return true
}

/** Was this unconfirmed account signed up for more than once (replacePendingRegistration)? */
const isContested = (user: { emailVerifiedAt: Date | null; passwordChangedAt: Date; createdAt: Date }): boolean =>
  user.emailVerifiedAt === null && user.passwordChangedAt > user.createdAt

/** A new link for an unconfirmed account whose password was just given: a confirmation, or for a contested one a link to choose the password. */
export async function mailSignUpLinkAgain(
  tx: Db,
  config: AccountServices['config'],
  user: { id: string; email: string; name: string; emailVerifiedAt: Date | null; passwordChangedAt: Date; createdAt: Date },
  now: Date,
): Promise<void> {
  if (isContested(user)) await mailFinishSignUpLink(tx, config, user, now)
  else await mailVerificationLink(tx, config, user, now)
}

/**
 * Confirms the address from the mailed link and signs the user in (a new session). A contested
 * sign-up is not confirmed this way (a link issued just before the address was signed up for
 * again): the person gets a link to choose the password by signing in.
 */
export async function verifyEmail(
  services: AccountServices,
  token: string,
  client: Client,
): Promise<{ session: NewSession; me: Awaited<ReturnType<typeof presentMe>> }> {
  const now = services.clock.now()
  const { session, userId } = await services.db.transaction(async (tx) => {
    const used = await consumeToken(tx, 'verify_email', token, now)
    const userId = used.userId ?? ''
    const [confirmed] = await tx
      .update(users)
      .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now.toISOString()}::timestamptz)` })
      .where(and(eq(users.id, userId), or(isNotNull(users.emailVerifiedAt), lte(users.passwordChangedAt, users.createdAt))))
      .returning({ id: users.id })
    if (!confirmed) throw new AppError('gone', 'This verification link no longer works: the address was signed up for again. Sign in to get a new link.')
    const session = await createSession(tx, services.config, { userId, ip: client.ip, userAgent: client.userAgent, authMethod: 'link' }, now)
    return { session, userId }
  })
  return { session, me: await presentMe(services.db, userId, session.orgId) }
}

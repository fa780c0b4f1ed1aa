import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { memberships, orgs, users } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { enqueueMail } from '../mail/outbox.ts'
import { joinedWorkspaceMail } from '../mail/templates.ts'
import type { Services } from '../services.ts'
import { consumeToken, findLiveToken, invitationOffer } from './account-tokens.ts'
import { dashboardLink, mailAlreadyRegistered, mailVerificationLink } from './account-mail.ts'
import type { SignUpBody } from './accounts.schemas.ts'
import { limitAccountMail } from './address-limits.ts'
import { cleanName, insertWorkspace, presentMe } from './me.ts'
import { checkNewPassword, hashPassword } from './passwords.ts'
import { createSession, type NewSession } from './sessions.ts'

export type AccountServices = Pick<Services, 'db' | 'clock' | 'config' | 'mail' | 'logger'>

/** Where a request comes from, for the session list and the per-address limits. */
export interface Client {
  ip: string
  userAgent: string | null
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

/**
 * Work whose duration would tell whether an address has an account (creating one, or mailing
 * a reset link) runs after the answer is sent: the answer takes as long either way. A failure
 * is logged; the person sees no mail and tries again.
 */
export function afterAnswer(services: Pick<AccountServices, 'logger' | 'mail'>, what: string, work: () => Promise<void>): void {
  // setImmediate: after the answer is written (the embedded database runs queries on this thread).
  setImmediate(() => {
    work().then(
      () => services.mail.kick(),
      (error: unknown) => services.logger.error({ err: error }, `${what} failed`),
    )
  })
}

/**
 * Sign-up answers the same for an address that has an account and one that has none (the
 * first gets a "you already have an account" mail instead of a link), and as fast: the answer
 * goes once the request is checked and the password hashed; the account is made after it
 * (afterAnswer). With an invitation token (from the invitation mail, which proves the
 * address) the user is created verified and joins that workspace before the answer; otherwise
 * they get their own Free workspace and must confirm the address first.
 */
export async function signUp(services: AccountServices, body: SignUpBody, client: Client): Promise<{ message: string }> {
  const now = services.clock.now()
  const email = normalizeEmail(body.email)
  const name = cleanName(body.name, 'Your name')
  checkNewPassword(body.password, email)
  const invitation = body.invitation_token ? await findLiveToken(services.db, 'invitation', body.invitation_token, now) : null
  if (invitation && invitation.email !== email) {
    throw invalid('This invitation was sent to another address: sign up with the address it was sent to.')
  }
  const workspaceName = body.workspace_name?.trim()
  if (!invitation && !workspaceName) throw invalid('Name your workspace (workspace_name): your team sees it on documents and in mails.')
  await limitAccountMail(services, client.ip)
  const passwordHash = await hashPassword(body.password)
  const account = { email, name, passwordHash, invitationToken: invitation ? body.invitation_token : undefined, workspaceName }
  const create = () => services.db.transaction((tx) => createAccount(tx, services.config, account, now))
  if (invitation) {
    // The invitation proves the address, so its holder learns nothing from the timing; the
    // account must exist when the answer arrives, because the page signs in right after it.
    await create()
    services.mail.kick()
  } else {
    afterAnswer(services, 'sign-up', create)
  }
  return { message: `Check your inbox at ${email}: we sent you an e-mail to continue.` }
}

/** The account and its first mail, or only the "you already have an account" mail. */
async function createAccount(
  tx: Db,
  config: AccountServices['config'],
  account: { email: string; name: string; passwordHash: string; invitationToken: string | undefined; workspaceName: string | undefined },
  now: Date,
): Promise<void> {
  const { email, name, passwordHash, invitationToken } = account
  const [existing] = await tx.select({ email: users.email, name: users.name }).from(users).where(eq(users.email, email))
  const [user] = existing
    ? []
    : await tx
        .insert(users)
        .values({ email, name, passwordHash, emailVerifiedAt: invitationToken ? now : null, passwordChangedAt: now, createdAt: now })
        .onConflictDoNothing({ target: users.email })
        .returning()
  if (!user) return mailAlreadyRegistered(tx, config, existing ?? { email, name })
  if (invitationToken) {
    const offer = invitationOffer(await consumeToken(tx, 'invitation', invitationToken, now))
    await tx.insert(memberships).values({ orgId: offer.orgId, userId: user.id, role: offer.role, createdAt: now })
    const [org] = await tx.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, offer.orgId))
    const mail = joinedWorkspaceMail({ name, workspaceName: org?.name ?? 'the workspace', loginLink: dashboardLink(config, 'login') })
    await enqueueMail(tx, [{ to: email, ...mail }])
  } else {
    await insertWorkspace(tx, { name: account.workspaceName ?? '', ownerId: user.id })
    await mailVerificationLink(tx, config, user, now)
  }
}

/** Confirms the address from the mailed link and signs the user in (a new session). */
export async function verifyEmail(services: AccountServices, token: string, client: Client): Promise<{ session: NewSession; me: Awaited<ReturnType<typeof presentMe>> }> {
  const now = services.clock.now()
  const { session, userId } = await services.db.transaction(async (tx) => {
    const used = await consumeToken(tx, 'verify_email', token, now)
    const userId = used.userId ?? ''
    await tx.update(users).set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now.toISOString()}::timestamptz)` }).where(eq(users.id, userId))
    const session = await createSession(tx, services.config, { userId, ip: client.ip, userAgent: client.userAgent }, now)
    return { session, userId }
  })
  return { session, me: await presentMe(services.db, userId, session.orgId) }
}

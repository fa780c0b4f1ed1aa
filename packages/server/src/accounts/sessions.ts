import { and, asc, desc, eq, ne, sql } from 'drizzle-orm'
import type { Clock } from '../adapters/clock.ts'
import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import { memberships, orgs, userSessions, users, type Plan, type WorkspaceRole } from '../db/schema.ts'
import { notFound } from '../errors.ts'
import { digestsEqual, randomToken, sha256Hex } from '../lib/crypto.ts'
import { isUuid } from '../lib/ids.ts'
import { preparedPer } from '../lib/prepared.ts'

/**
 * Dashboard sessions, kept on the server: the cookie holds 256 random bits, the table only
 * their SHA-256, so a leaked table or backup opens no session. A session ends after
 * SESSION_IDLE_HOURS without a request and SESSION_MAX_DAYS after sign-in; every sign-in
 * makes a new one (a cookie set before sign-in is never promoted: no session fixation).
 */
export const SESSION_COOKIE = 'signet_session'
const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/
/** last_seen_at is written at most this often per session: one write a minute, not one per request. */
const LAST_SEEN_RESOLUTION_MS = 60_000

export interface SelectedWorkspace {
  orgId: string
  orgName: string
  plan: Plan
  role: WorkspaceRole
  /** The workspace requires a second factor of its members' sessions (http/auth.ts principalOf). */
  requireTwoFactor: boolean
}

/** Who a session cookie signs in, with the workspace the session acts in. */
export interface SignedInSession {
  sessionId: string
  userId: string
  email: string
  name: string
  isOperator: boolean
  emailVerified: boolean
  /** The session proved a second factor (signed in with one, or set one up since). */
  secondFactor: boolean
  /** Null when the user belongs to no workspace (removed from all): only the /me routes serve them. */
  workspace: SelectedWorkspace | null
}

export interface NewSession {
  token: string
  expiresAt: Date
  sessionId: string
  /** The workspace it acts in. */
  orgId: string | null
}

type SessionConfig = Pick<Config, 'sessions'>

/** How a session signed in (user_sessions.auth_method): a password, a mailed link, or those with a second factor. */
export type SessionAuthMethod = 'password' | 'link' | 'password+totp' | 'password+passkey' | 'password+recovery_code' | 'passkey'

/** The workspace a new session starts in: the one the user joined first, or none. */
export async function firstWorkspaceOf(tx: Db, userId: string): Promise<string | null> {
  const [first] = await tx
    .select({ orgId: memberships.orgId })
    .from(memberships)
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(memberships.orgId))
    .limit(1)
  return first?.orgId ?? null
}

/**
 * Starts a session for the user (always a new id); `orgId` undefined picks their first
 * workspace. `secondFactorAt`: when the sign-in proved a second factor.
 */
export async function createSession(
  tx: Db,
  config: SessionConfig,
  input: { userId: string; orgId?: string | null; ip: string | null; userAgent: string | null; authMethod: SessionAuthMethod; secondFactorAt?: Date | null },
  now: Date,
): Promise<NewSession> {
  const token = randomToken(32)
  const expiresAt = new Date(now.getTime() + config.sessions.maxDays * 24 * 3600_000)
  const orgId = input.orgId === undefined ? await firstWorkspaceOf(tx, input.userId) : input.orgId
  const [row] = await tx
    .insert(userSessions)
    .values({
      tokenHash: sha256Hex(token),
      userId: input.userId,
      orgId,
      ip: input.ip,
      userAgent: input.userAgent?.slice(0, 500) ?? null,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
      authMethod: input.authMethod,
      secondFactorAt: input.secondFactorAt ?? null,
    })
    .returning({ id: userSessions.id })
  if (!row) throw new Error('insert returned no row')
  return { token, expiresAt, sessionId: row.id, orgId }
}

const sessionByHash = preparedPer((db) =>
  db
    .select({
      sessionId: userSessions.id,
      tokenHash: userSessions.tokenHash,
      lastSeenAt: userSessions.lastSeenAt,
      expiresAt: userSessions.expiresAt,
      secondFactorAt: userSessions.secondFactorAt,
      userId: users.id,
      email: users.email,
      name: users.name,
      isOperator: users.isOperator,
      emailVerifiedAt: users.emailVerifiedAt,
      disabledAt: users.disabledAt,
      orgId: orgs.id,
      orgName: orgs.name,
      plan: orgs.plan,
      requireTwoFactor: orgs.requireTwoFactor,
      role: memberships.role,
    })
    .from(userSessions)
    .innerJoin(users, eq(users.id, userSessions.userId))
    // The membership is read on every request, so a changed role or a removal counts at once.
    .leftJoin(memberships, and(eq(memberships.orgId, userSessions.orgId), eq(memberships.userId, userSessions.userId)))
    .leftJoin(orgs, eq(orgs.id, memberships.orgId))
    .where(eq(userSessions.tokenHash, sql.placeholder('tokenHash')))
    .prepare('user_session_by_hash'),
)

/** The live session a cookie names, or null (unknown, idle too long, past its end, or its user disabled). */
export async function authenticateSession(services: { db: Db; clock: Clock; config: SessionConfig }, token: string): Promise<SignedInSession | null> {
  if (!SESSION_TOKEN_PATTERN.test(token)) return null
  const presentedHash = sha256Hex(token)
  const [row] = await sessionByHash(services.db).execute({ tokenHash: presentedHash })
  if (!row || !digestsEqual(row.tokenHash, presentedHash)) return null
  const now = services.clock.now()
  const idleEnd = row.lastSeenAt.getTime() + services.config.sessions.idleHours * 3600_000
  if (row.disabledAt || row.expiresAt <= now || idleEnd <= now.getTime()) {
    await services.db.delete(userSessions).where(eq(userSessions.id, row.sessionId))
    return null
  }
  if (now.getTime() - row.lastSeenAt.getTime() >= LAST_SEEN_RESOLUTION_MS) {
    await services.db.update(userSessions).set({ lastSeenAt: now }).where(eq(userSessions.id, row.sessionId))
  }
  return {
    sessionId: row.sessionId,
    userId: row.userId,
    email: row.email,
    name: row.name,
    isOperator: row.isOperator,
    emailVerified: row.emailVerifiedAt !== null,
    secondFactor: row.secondFactorAt !== null,
    workspace:
      row.orgId && row.orgName && row.plan && row.role
        ? { orgId: row.orgId, orgName: row.orgName, plan: row.plan, role: row.role, requireTwoFactor: row.requireTwoFactor === true }
        : null,
  }
}

/** Ends one session by its token (sign-out); an unknown token ends nothing. */
export async function endSessionByToken(db: Db, token: string): Promise<void> {
  if (SESSION_TOKEN_PATTERN.test(token)) await db.delete(userSessions).where(eq(userSessions.tokenHash, sha256Hex(token)))
}

/** Ends every session of the user, or every one but `exceptSessionId`. */
export async function endUserSessions(tx: Db, userId: string, exceptSessionId?: string): Promise<void> {
  await tx.delete(userSessions).where(and(eq(userSessions.userId, userId), exceptSessionId ? ne(userSessions.id, exceptSessionId) : undefined))
}

export interface SessionListing {
  id: string
  created_at: string
  last_seen_at: string
  ip: string | null
  user_agent: string | null
  current: boolean
}

export async function listSessions(db: Db, session: SignedInSession): Promise<{ sessions: SessionListing[] }> {
  const rows = await db.select().from(userSessions).where(eq(userSessions.userId, session.userId)).orderBy(desc(userSessions.lastSeenAt))
  return {
    sessions: rows.map((row) => ({
      id: row.id,
      created_at: row.createdAt.toISOString(),
      last_seen_at: row.lastSeenAt.toISOString(),
      ip: row.ip,
      user_agent: row.userAgent,
      current: row.id === session.sessionId,
    })),
  }
}

/** Ends one of the user's own sessions (another user's session id is a 404, as an unknown one is). */
export async function endOwnSession(db: Db, session: SignedInSession, sessionId: string): Promise<void> {
  const ended = isUuid(sessionId)
    ? await db
        .delete(userSessions)
        .where(and(eq(userSessions.id, sessionId), eq(userSessions.userId, session.userId)))
        .returning({ id: userSessions.id })
    : []
  if (ended.length === 0) throw notFound('No such session of yours.')
}

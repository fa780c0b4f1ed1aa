import { and, eq, isNull, lt } from 'drizzle-orm'
import type { SecretSealer } from '../adapters/document-cipher.ts'
import type { Db } from '../db/client.ts'
import { idempotentRequests } from '../db/schema.ts'
import { AppError } from '../errors.ts'

/** How long a key and its answer are kept: a repeat after that runs as a new request. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000

/**
 * A keyed request still without an answer this long after it began was interrupted (its server
 * stopped or died): longer than any request runs once its body has arrived (bulk sends and seals
 * have budgets of a minute or less).
 */
export const INTERRUPTED_AFTER_MS = 2 * 60 * 1000

/** One keyed request: the org that sent it, the route (`POST /api/v1/documents`), the key and the SHA-256 of what it sent. */
export interface KeyedRequest {
  orgId: string
  route: string
  key: string
  requestHash: string
}

/** The answers are kept encrypted with the instance key: a webhook's creation answer holds its signing secret. */
export interface IdempotencyStore {
  db: Db
  secrets: SecretSealer
}

export interface StoredAnswer {
  status: number
  body: string
}

/**
 * Claims the key for a request about to run, or finds what an earlier request with it left:
 * `null` when this request may run (the key is now held until `storeAnswer` or `releaseKey`),
 * the stored answer when a finished request with the same body had it. Another body, or an
 * earlier request still running (or interrupted by a crash before its answer was stored), is a 409.
 */
export async function claimKey({ db, secrets }: IdempotencyStore, request: KeyedRequest, now: Date): Promise<StoredAnswer | null> {
  // One statement: a new key is inserted, and a key whose window has passed (not yet swept by
  // deleteExpiredIdempotentRequests) is taken over as if new. A live key is left as it is.
  const [claimed] = await db
    .insert(idempotentRequests)
    .values({ ...request, createdAt: now })
    .onConflictDoUpdate({
      target: [idempotentRequests.orgId, idempotentRequests.route, idempotentRequests.key],
      set: { requestHash: request.requestHash, createdAt: now, status: null, responseBody: null },
      setWhere: lt(idempotentRequests.createdAt, windowStart(now)),
    })
    .returning({ key: idempotentRequests.key })
  if (claimed) return null

  const [earlier] = await db.select().from(idempotentRequests).where(sameKey(request))
  // Released between our insert and this read: the earlier request failed, so a retry may run.
  if (!earlier) throw inProgress()
  if (earlier.requestHash !== request.requestHash) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request. Use a new key for a new request.')
  }
  if (earlier.status === null || earlier.responseBody === null) {
    throw now.getTime() - earlier.createdAt.getTime() > INTERRUPTED_AFTER_MS ? interrupted() : inProgress()
  }
  const body = await secrets.decrypt(Buffer.from(earlier.responseBody, 'base64'), contextOf(request))
  return { status: earlier.status, body: body.toString('utf8') }
}

/** Keeps the answer of the request that holds the key, for its repeats. */
export async function storeAnswer({ db, secrets }: IdempotencyStore, request: KeyedRequest, answer: StoredAnswer): Promise<void> {
  const sealed = await secrets.encrypt(Buffer.from(answer.body, 'utf8'), contextOf(request))
  await db
    .update(idempotentRequests)
    .set({ status: answer.status, responseBody: sealed.toString('base64') })
    .where(and(sameKey(request), isNull(idempotentRequests.status)))
}

/** Frees the key of a request that failed (it changed nothing), so a repeat runs again. */
export async function releaseKey(db: Db, request: KeyedRequest): Promise<void> {
  await db.delete(idempotentRequests).where(and(sameKey(request), isNull(idempotentRequests.status)))
}

/**
 * The background sweep's part (compose-services.ts): keys and answers older than the window,
 * deleted on the created_at index, off the request path.
 */
export async function deleteExpiredIdempotentRequests(db: Db, now: Date): Promise<void> {
  await db.delete(idempotentRequests).where(lt(idempotentRequests.createdAt, windowStart(now)))
}

const windowStart = (now: Date) => new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)

/** Binds a stored answer to its org, route and key: it cannot be moved to another row. */
const contextOf = (request: KeyedRequest) => `idempotent-answer:${request.orgId}:${request.route}:${request.key}`

const sameKey = (request: KeyedRequest) =>
  and(eq(idempotentRequests.orgId, request.orgId), eq(idempotentRequests.route, request.route), eq(idempotentRequests.key, request.key))

/*
 * Whether an interrupted request took effect cannot be known (it may have committed just before its
 * server died), so the key is not handed to the repeat: that could do the work twice. The caller
 * is told what to check instead of a 24-hour "in progress".
 */
const interrupted = () =>
  new AppError(
    'conflict',
    'The request first sent with this Idempotency-Key was interrupted before it answered (its server stopped), so whether it took effect is unknown. Check for the resource it would have made (for example, list your documents), then send the request again with a new key if it is missing.',
  )

const inProgress = () =>
  new AppError(
    'idempotency_key_in_progress',
    'A request with this Idempotency-Key is still in progress. Retry after it has finished.',
    {},
    { 'retry-after': '1' },
  )

import { and, eq, isNull } from 'drizzle-orm'
import { authenticateSession } from '../accounts/sessions.ts'
import type { Db } from '../db/client.ts'
import { apiKeys } from '../db/schema.ts'
import { digestsEqual, sha256Hex } from '../lib/crypto.ts'
import type { Services } from '../services.ts'

/**
 * What opened a stream, kept so that it can be checked again while the stream lasts: a stream
 * may stay open for days, and revoking its key (or ending its session) must end it too. A key is
 * kept as its SHA-256 only; a session as its cookie's token, which authenticateSession hashes.
 */
export type StreamCredential = { kind: 'api_key'; keyHash: string } | { kind: 'session'; token: string }

export const apiKeyCredential = (presented: string): StreamCredential => ({ kind: 'api_key', keyHash: sha256Hex(presented) })

/** The id of the org's active key with this hash, or null (revoked, or not the org's). */
export async function activeApiKeyId(db: Db, orgId: string, keyHash: string): Promise<string | null> {
  const [row] = await db
    .select({ id: apiKeys.id, keyHash: apiKeys.keyHash })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt)))
  return row && digestsEqual(row.keyHash, keyHash) ? row.id : null
}

/** Whether the credential still grants access to the org (a session: still live, and still in that workspace). */
export async function credentialStillValid(services: Pick<Services, 'db' | 'clock' | 'config'>, orgId: string, credential: StreamCredential): Promise<boolean> {
  switch (credential.kind) {
    case 'api_key':
      return (await activeApiKeyId(services.db, orgId, credential.keyHash)) !== null
    case 'session':
      return (await authenticateSession(services, credential.token))?.workspace?.orgId === orgId
  }
}

import { eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { orgs } from '../db/schema.ts'
import { notFound } from '../errors.ts'

/**
 * Locks the workspace's row for the rest of the transaction. Every change to who belongs to a
 * workspace, with which role, and who is invited to it (role changes, removals, invitations
 * sent and accepted) takes this lock first, so they run one at a time per workspace and never
 * lock membership rows in different orders (two owners demoting and removing each other at
 * once deadlocked on PostgreSQL). `no key update`: rows that merely reference the workspace
 * (documents, usage, memberships inserted elsewhere) take a key-share lock, which this one
 * does not block.
 */
export async function lockWorkspace(tx: Db, orgId: string): Promise<void> {
  const [org] = await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, orgId)).for('no key update')
  if (!org) throw notFound('No such workspace.')
}

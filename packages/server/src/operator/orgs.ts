import { desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm'
import type { Actor } from '../actors/actor.ts'
import { requireOperator } from '../accounts/roles.ts'
import { grantCredits, type GrantResult } from '../billing/credits.ts'
import { identityChecks, memberships, orgs, type IdentityCheckStatus, type Plan } from '../db/schema.ts'
import { isUuid } from '../lib/ids.ts'
import { identityStatusOf } from '../orgs/identity-checks.ts'
import { setOrgPlan } from '../orgs/orgs.ts'
import type { Services } from '../services.ts'
import type { OperatorListQuery, OperatorOrgList } from './operator.schemas.ts'
import { containsPattern, countAll } from './search.ts'

/** The instance's orgs for the Operator area: name search (or an exact id), newest first. */
export async function listOrgs(services: Pick<Services, 'db' | 'clock'>, actor: Actor, query: OperatorListQuery): Promise<OperatorOrgList> {
  requireOperator(actor)
  const { limit = 50, offset = 0 } = query
  const search = query.search?.trim()
  const matches: SQL | undefined = search ? or(ilike(orgs.name, containsPattern(search)), isUuid(search) ? eq(orgs.id, search) : undefined) : undefined
  const latestCheck = (column: SQL) =>
    sql`(select ${column} from ${identityChecks} where ${identityChecks.orgId} = ${orgs.id} order by ${identityChecks.createdAt} desc limit 1)`
  const [rows, [counted]] = await Promise.all([
    services.db
      .select({
        id: orgs.id,
        name: orgs.name,
        plan: orgs.plan,
        createdAt: orgs.createdAt,
        creditBalance: orgs.creditBalance,
        identityVerifiedAt: orgs.identityVerifiedAt,
        members: sql<number>`(select count(*)::int from ${memberships} where ${memberships.orgId} = ${orgs.id})`,
        latestStatus: latestCheck(sql`status`).mapWith(String),
        latestDecidedAt: latestCheck(sql`decided_at`).mapWith(identityChecks.decidedAt),
      })
      .from(orgs)
      .where(matches)
      .orderBy(desc(orgs.createdAt), desc(orgs.id))
      .limit(limit)
      .offset(offset),
    services.db.select({ total: countAll() }).from(orgs).where(matches),
  ])
  const now = services.clock.now()
  return {
    orgs: rows.map((row) => ({
      id: row.id,
      name: row.name,
      plan: row.plan,
      created_at: row.createdAt.toISOString(),
      members: row.members,
      identity_status: identityStatusOf(
        row,
        row.latestStatus ? { status: row.latestStatus as IdentityCheckStatus, decidedAt: row.latestDecidedAt } : undefined,
        now,
      ),
      credit_balance: row.creditBalance,
    })),
    total: counted?.total ?? 0,
    limit,
    offset,
  }
}

/** Moves an org to another plan; this process's cached principals (which carry the plan) are dropped at once. */
export async function setPlanAsOperator(services: Pick<Services, 'db' | 'principals'>, actor: Actor, orgId: string, plan: Plan) {
  requireOperator(actor)
  const result = await setOrgPlan(services.db, { orgId, plan })
  services.principals.clear()
  return result
}

export async function grantCreditsAsOperator(services: Pick<Services, 'db'>, actor: Actor, orgId: string, packs: number): Promise<GrantResult> {
  requireOperator(actor)
  return grantCredits(services, { orgId, packs, source: 'operator' })
}

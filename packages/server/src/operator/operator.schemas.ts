import { Type, type Static } from 'typebox'
import { MAX_PACKS_PER_GRANT } from '../billing/credits.ts'
import { PLANS, WORKSPACE_ROLES } from '../db/schema.ts'
import { Offset, Timestamp } from '../lib/schemas.ts'
import { IDENTITY_STATUSES } from '../orgs/identity-checks.schemas.ts'

export const OperatorListQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 200, description: 'part of the name (orgs) or of the e-mail or name (users), any case; or an exact id' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    offset: Type.Optional(Offset),
  },
  { additionalProperties: false },
)
export type OperatorListQuery = Static<typeof OperatorListQuery>

export const OrgIdParams = Type.Object({ id: Type.String({ description: 'an org (workspace) id (UUID)' }) }, { additionalProperties: false })
export const UserIdParams = Type.Object({ id: Type.String({ description: 'a user id (UUID)' }) }, { additionalProperties: false })

export const OperatorOrg = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    plan: Type.Enum(PLANS),
    created_at: Timestamp,
    members: Type.Integer({ description: 'people in the workspace' }),
    identity_status: Type.Enum(IDENTITY_STATUSES),
    credit_balance: Type.Integer({ description: 'credits left from packs' }),
  },
  { additionalProperties: false },
)
export type OperatorOrg = Static<typeof OperatorOrg>

export const OperatorOrgList = Type.Object(
  { orgs: Type.Array(OperatorOrg, { description: 'newest first' }), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() },
  { additionalProperties: false },
)
export type OperatorOrgList = Static<typeof OperatorOrgList>

export const OperatorUser = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    name: Type.String(),
    is_operator: Type.Boolean(),
    disabled: Type.Boolean({ description: 'a disabled user cannot sign in' }),
    email_verified: Type.Boolean(),
    two_factor: Type.Boolean({ description: 'an authenticator app or a passkey is set up' }),
    created_at: Timestamp,
    workspaces: Type.Array(
      Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String(), role: Type.Enum(WORKSPACE_ROLES) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
)
export type OperatorUser = Static<typeof OperatorUser>

export const OperatorUserList = Type.Object(
  { users: Type.Array(OperatorUser, { description: 'newest first' }), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() },
  { additionalProperties: false },
)
export type OperatorUserList = Static<typeof OperatorUserList>

export const SetPlanBody = Type.Object({ plan: Type.Enum(PLANS) }, { additionalProperties: false })
export const PlanSet = Type.Object({ org_id: Type.String({ format: 'uuid' }), plan: Type.Enum(PLANS) }, { additionalProperties: false })

export const GrantCreditsBody = Type.Object(
  { packs: Type.Integer({ minimum: 1, maximum: MAX_PACKS_PER_GRANT, description: 'credit packs of 25 credits each' }) },
  { additionalProperties: false },
)
export const CreditsGranted = Type.Object(
  { org_id: Type.String({ format: 'uuid' }), credits_granted: Type.Integer(), credit_balance: Type.Integer() },
  { additionalProperties: false },
)

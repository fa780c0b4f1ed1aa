import { Type, type Static } from 'typebox'
import { PLANS, WORKSPACE_ROLES } from '../db/schema.ts'
import { Timestamp } from '../lib/schemas.ts'
import { displayName } from '../lib/visible-text.ts'
import { MAX_PASSWORD_LENGTH } from './passwords.ts'

/** Shapes of the accounts, sessions and members routes; the routes, the OpenAPI document and the web client read them. */

export const Email = Type.String({ format: 'email', maxLength: 254 })
/** Lengths are checked by checkNewPassword with a readable message; the schema only bounds the body. */
const Password = Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH * 4 })
const PersonName = displayName(Type.String({ minLength: 1, maxLength: 200 }))
const WorkspaceName = displayName(Type.String({ minLength: 1, maxLength: 200 }))
const Token = Type.String({ minLength: 1, maxLength: 200 })
export const Role = Type.Enum(WORKSPACE_ROLES)

export const Message = Type.Object({ message: Type.String() }, { additionalProperties: false })

export const Instance = Type.Object(
  {
    setup_required: Type.Boolean({ description: 'true until the operator account exists (use the setup link `npm start` prints)' }),
    signup_open: Type.Boolean(),
    version: Type.String(),
  },
  { additionalProperties: false },
)

export const SignUpBody = Type.Object(
  {
    email: Email,
    password: Password,
    name: PersonName,
    workspace_name: Type.Optional(WorkspaceName),
    invitation_token: Type.Optional(Token),
  },
  { additionalProperties: false },
)
export type SignUpBody = Static<typeof SignUpBody>

export const LogInBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }), password: Password }, { additionalProperties: false })
export const TokenBody = Type.Object({ token: Token }, { additionalProperties: false })
export const ForgotPasswordBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) }, { additionalProperties: false })
export const ResetPasswordBody = Type.Object({ token: Token, password: Password }, { additionalProperties: false })
export const SetUpOperatorBody = Type.Object(
  { token: Token, email: Email, password: Password, name: PersonName, workspace_name: WorkspaceName },
  { additionalProperties: false },
)
export type SetUpOperatorBody = Static<typeof SetUpOperatorBody>

const WorkspaceSummary = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    plan: Type.Enum(PLANS),
    role: Role,
    require_two_factor: Type.Boolean({ description: 'members must sign in with a second factor (a session without one sees only the account pages)' }),
  },
  { additionalProperties: false },
)

const ability = (description: string) => Type.Boolean({ description })

/** An extension of the spec: computed by accounts/roles.ts abilitiesOf; the server still checks each action itself. */
export const Abilities = Type.Object(
  {
    manage_api_keys: ability('create and revoke API keys (owners and admins)'),
    manage_connected_apps: ability("revoke any app connected with OAuth, not only one's own (owners and admins)"),
    manage_webhooks: ability('add and remove webhook endpoints (owners and admins)'),
    manage_billing: ability('change the spend cap (owners and admins; everyone sees usage)'),
    manage_members: ability('invite members and change or remove them (owners and admins)'),
    manage_owners: ability('make someone an owner or change an owner (owners)'),
    manage_identity_check: ability("submit the workspace's identity check (owners)"),
    require_two_factor: ability('turn on or off the rule that members sign in with a second factor (owners)'),
    operate_instance: ability('use the Operator area (instance operators)'),
  },
  { additionalProperties: false, description: 'what the user may do in the workspace this session acts in (all false but operate_instance without one)' },
)
export type Abilities = Static<typeof Abilities>

export const Me = Type.Object(
  {
    user: Type.Object(
      { id: Type.String(), email: Type.String(), name: Type.String(), is_operator: Type.Boolean(), email_verified: Type.Boolean() },
      { additionalProperties: false },
    ),
    workspace: Type.Union([WorkspaceSummary, Type.Null()], { description: 'the workspace this session acts in; null when the user belongs to none' }),
    workspaces: Type.Array(WorkspaceSummary),
    abilities: Abilities,
  },
  { additionalProperties: false },
)
export type Me = Static<typeof Me>

export const UpdateMeBody = Type.Object({ name: PersonName }, { additionalProperties: false })
export const ChangePasswordBody = Type.Object({ current_password: Password, new_password: Password }, { additionalProperties: false })
export const SwitchWorkspaceBody = Type.Object({ workspace_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false })
export const CreateWorkspaceBody = Type.Object({ name: WorkspaceName }, { additionalProperties: false })

export const SessionList = Type.Object(
  {
    sessions: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          created_at: Timestamp,
          last_seen_at: Timestamp,
          ip: Type.Union([Type.String(), Type.Null()]),
          user_agent: Type.Union([Type.String(), Type.Null()]),
          current: Type.Boolean({ description: 'the session of this request' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false })
export const TokenParams = Type.Object({ token: Token }, { additionalProperties: false })
export const UserIdParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false })

export const InvitationPreview = Type.Object(
  { workspace_name: Type.String(), email: Type.String(), role: Role, inviter_name: Type.Union([Type.String(), Type.Null()]) },
  { additionalProperties: false },
)

export const PendingInvitation = Type.Object(
  { id: Type.String(), email: Type.String(), role: Role, created_at: Timestamp, expires_at: Timestamp },
  { additionalProperties: false },
)
export type PendingInvitation = Static<typeof PendingInvitation>

export const Member = Type.Object(
  { user_id: Type.String(), email: Type.String(), name: Type.String(), role: Role, joined_at: Timestamp },
  { additionalProperties: false },
)
export type Member = Static<typeof Member>

export const MemberList = Type.Object({ members: Type.Array(Member), invitations: Type.Array(PendingInvitation) }, { additionalProperties: false })
export const InviteMemberBody = Type.Object({ email: Email, role: Role }, { additionalProperties: false })
export const UpdateMemberBody = Type.Object({ role: Role }, { additionalProperties: false })

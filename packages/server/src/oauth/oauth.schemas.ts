import { Type } from 'typebox'
import { SCOPES } from '../actors/scopes.ts'
import { NullableTimestamp, Timestamp } from '../lib/schemas.ts'
import { WORKSPACE_ROLES } from '../db/schema.ts'

const Scopes = Type.Array(Type.Enum(SCOPES), {
  uniqueItems: true,
  maxItems: SCOPES.length,
  description: 'read: documents and usage (the seven read-only agent tools); write: send, seal and manage documents',
})

export const ConnectedAppIdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 200, description: 'a connected app id, as listed by GET /connected-apps' }) },
  { additionalProperties: false },
)

export const ConnectedAppView = Type.Object(
  {
    id: Type.String(),
    client_name: Type.String({ description: 'the name the app gave itself when it registered (not verified by Signet)' }),
    client_name_verified: Type.Boolean(),
    client_uri: Type.Union([Type.String(), Type.Null()]),
    scopes: Scopes,
    granted_by: Type.Union([Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }, { additionalProperties: false }), Type.Null()]),
    granted_at: Timestamp,
    last_used_at: NullableTimestamp,
  },
  { additionalProperties: false },
)

export const ConnectedAppList = Type.Object({ data: Type.Array(ConnectedAppView) }, { additionalProperties: false })

export const ConsentParams = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false })

export const ConsentDetailsView = Type.Object(
  {
    client: Type.Object(
      {
        name: Type.String(),
        name_verified: Type.Boolean(),
        uri: Type.Union([Type.String(), Type.Null()]),
        redirect_host: Type.String(),
        metadata_document: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    requested: Scopes,
    workspaces: Type.Array(
      Type.Object(
        { id: Type.String(), name: Type.String(), role: Type.Enum(WORKSPACE_ROLES), can_grant_write: Type.Boolean(), selected: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
    user: Type.Object({ name: Type.String(), email: Type.String() }, { additionalProperties: false }),
  },
  { additionalProperties: false },
)

/** One object rather than a union, so that a wrong value is refused at its own field (consent.ts asks for the rest when `allow`). */
export const ConsentAnswerBody = Type.Object(
  {
    allow: Type.Boolean(),
    workspace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'the workspace granted; required when allow' })),
    scopes: Type.Optional({ ...Scopes, minItems: 1, description: 'what is granted; required when allow' }),
  },
  { additionalProperties: false },
)

export const ConsentRedirect = Type.Object({ redirect_to: Type.String() }, { additionalProperties: false })

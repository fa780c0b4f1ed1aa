import { Type, type Static } from 'typebox'
import { SCOPES } from '../actors/scopes.ts'
import { NullableTimestamp, Timestamp } from '../lib/schemas.ts'
import { displayName } from '../lib/visible-text.ts'

export const MAX_KEY_NAME_LENGTH = 100

export const ApiKeyIdParams = Type.Object({ id: Type.String({ description: 'an API key id (UUID), as listed by GET /keys' }) }, { additionalProperties: false })

const Scopes = Type.Array(Type.Enum(SCOPES), {
  minItems: 1,
  uniqueItems: true,
  description: 'what the key may do: read (documents, templates, webhooks and usage) and write (send, void, seal and manage)',
})

export const CreateApiKeyBody = Type.Object(
  {
    name: displayName(Type.String({ minLength: 1, maxLength: MAX_KEY_NAME_LENGTH, description: 'what the key is for, e.g. "CRM integration"' })),
    scopes: Type.Optional({ ...Scopes, description: '["read"] for a read-only key, or ["read", "write"] (the default)' }),
  },
  { additionalProperties: false },
)

const Prefix = Type.String({ description: 'sgn_live_ and the first 8 hex characters of the key: how the key is recognised' })

export const ApiKeyCreated = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    prefix: Prefix,
    api_key: Type.String({ description: 'the key itself, shown only in this response: only its SHA-256 is stored' }),
    scopes: Scopes,
    created_at: Timestamp,
  },
  { additionalProperties: false },
)

export const ApiKeyView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.Union([Type.String(), Type.Null()], { description: 'null for keys made by the operator CLI' }),
    prefix: Prefix,
    scopes: Scopes,
    created_at: Timestamp,
    last_used_at: { ...NullableTimestamp, description: 'when the key last authenticated a request (kept to the minute)' },
    revoked_at: NullableTimestamp,
    created_by: Type.Union([Type.Object({ name: Type.String(), email: Type.String() }, { additionalProperties: false }), Type.Null()], {
      description: 'the dashboard user who created the key; null for keys made by the operator CLI',
    }),
  },
  { additionalProperties: false },
)

export const ApiKeyList = Type.Object({ keys: Type.Array(ApiKeyView, { description: 'newest first, revoked keys included' }) }, { additionalProperties: false })

export type ApiKeyCreated = Static<typeof ApiKeyCreated>
export type ApiKeyView = Static<typeof ApiKeyView>
export type ApiKeyList = Static<typeof ApiKeyList>

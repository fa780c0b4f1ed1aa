import { Type } from 'typebox'
import { MAX_DECLINE_REASON } from './transitions.ts'

export const TokenParams = Type.Object({ token: Type.String({ maxLength: 64 }) }, { additionalProperties: false })

export const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: false }))

export const FinishBody = Type.Object(
  {
    values: Type.Record(Type.String({ pattern: '^[0-9]{1,4}$' }), Type.Union([Type.String({ maxLength: 1_000_000 }), Type.Boolean()]), {
      additionalProperties: false,
    }),
  },
  { additionalProperties: false },
)

export const DeclineBody = Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ maxLength: MAX_DECLINE_REASON })) }, { additionalProperties: false }))

export const VerifyBody = Type.Object({ code: Type.String({ maxLength: 20 }) }, { additionalProperties: false })

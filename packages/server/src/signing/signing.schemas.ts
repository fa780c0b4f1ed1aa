import { Type } from 'typebox'
import { MAX_DECLINE_REASON } from './transitions.ts'

export const TokenParams = Type.Object({ token: Type.String({ maxLength: 64 }) }, { additionalProperties: false })

export const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: false }))

export const FinishBody = Type.Object(
  {
    values: Type.Record(Type.String({ pattern: '^[0-9]{1,4}$' }), Type.Union([Type.String({ maxLength: 1_000_000 }), Type.Boolean(), Type.Number()]), {
      additionalProperties: false,
    }),
    locale: Type.Optional(
      Type.String({
        maxLength: 35,
        pattern: '^[A-Za-z0-9-]+$',
        description: "the signer's language tag (navigator.language): date fields are printed in it, else as yyyy-mm-dd",
      }),
    ),
  },
  { additionalProperties: false },
)

export const DeclineBody = Type.Optional(
  Type.Object({ reason: Type.Optional(Type.String({ maxLength: MAX_DECLINE_REASON })) }, { additionalProperties: false }),
)

export const VerifyBody = Type.Object({ code: Type.String({ maxLength: 20 }) }, { additionalProperties: false })

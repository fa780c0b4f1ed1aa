import { Type, type Static } from 'typebox'
import { ERROR_CODES } from './errors.ts'

/**
 * The error body every channel writes (REST, session routes, signing JSON endpoints, and MCP
 * tool results as structuredContent): AppError.body's shape, declared once for the OpenAPI
 * document and the tools' output schemas.
 */
const ErrorText = Type.String({ description: 'what went wrong, in a sentence for a person' })
const ErrorCodeSchema = Type.Enum(ERROR_CODES, { type: 'string', description: 'a stable machine name for the kind of error; act on it, not on the text' })
const ErrorField = Type.Optional(
  Type.String({
    description: 'the JSON pointer (RFC 6901) of the value at fault, e.g. /signers/0/email; on validation errors and domain errors about one field',
  }),
)

export const ErrorBodySchema = Type.Object({ error: ErrorText, code: ErrorCodeSchema, field: ErrorField }, { $id: 'Error', additionalProperties: false })

export const PaymentRequiredBodySchema = Type.Object(
  {
    error: ErrorText,
    code: ErrorCodeSchema,
    field: ErrorField,
    upgrade_url: Type.Optional(Type.String({ format: 'uri', description: 'checkout link for a credit pack' })),
    upgrade: Type.Optional(Type.Boolean()),
  },
  { $id: 'PaymentRequired', additionalProperties: false },
)

/**
 * The two bodies as references, for route responses: the OpenAPI document then holds each once,
 * in components/schemas (the shared schemas http/error-handler.ts registers), not once per response.
 */
export const ErrorBody = Type.Unsafe<Static<typeof ErrorBodySchema>>({ $ref: 'Error#' })
export const PaymentRequiredBody = Type.Unsafe<Static<typeof PaymentRequiredBodySchema>>({ $ref: 'PaymentRequired#' })

import { Type, type Static } from 'typebox'
import { CERTIFICATE_MODES } from '../db/schema.ts'
import { NullableTimestamp, Timestamp } from '../lib/schemas.ts'
import { displayName } from '../lib/visible-text.ts'

/** The uploaded PDF itself, as the raw request body (validated by its content-type parser, not by Ajv). */
export const PdfBody = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The PDF to seal (at most 25 MB), sent as the raw body' })

export const SealQuery = Type.Object(
  {
    title: Type.Optional(
      displayName(Type.String({ minLength: 1, maxLength: 200, description: "Shown on the badge and certificate; default: the filename without '.pdf'" })),
    ),
    filename: Type.Optional(displayName(Type.String({ minLength: 1, maxLength: 255, description: 'The original file name, printed on the certificate' }))),
    certificate_mode: Type.Optional(
      Type.Enum(CERTIFICATE_MODES, {
        description:
          'both (default): certificate appended to the sealed file and as a separate PDF; separate: original untouched + separate certificate; appended: certificate inside the sealed file only',
      }),
    ),
  },
  { additionalProperties: false },
)

const Url = Type.String({ format: 'uri' })

export const SealView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    title: Type.String(),
    status: Type.Literal('completed'),
    is_verified_badge: Type.Literal(true),
    certificate_mode: Type.Enum(CERTIFICATE_MODES),
    seal_status: Type.Union([Type.Literal('sealed'), Type.Literal('pending'), Type.Literal('failed')], {
      description:
        'pending while no time-stamp authority answered (the seal is retried in the background and never made untimed); failed when it cannot be made (the operator is alerted)',
    }),
    sealed_at: { ...NullableTimestamp, description: 'the RFC 3161-proven time of the seal' },
    timestamp_authority: Type.Union([Type.String(), Type.Null()]),
    sha256: Type.Union([Type.String(), Type.Null()], { description: 'SHA-256 of the sealed file' }),
    original_sha256: Type.String({ description: 'SHA-256 of the uploaded PDF' }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'why the seal is pending or failed' }),
    verify_url: Url,
    sealed_file_url: Url,
    certificate_file_url: Type.Union([Url, Type.Null()]),
    badge_image_url: Url,
    created_at: Timestamp,
  },
  { additionalProperties: false },
)

export type SealQuery = Static<typeof SealQuery>
export type SealView = Static<typeof SealView>

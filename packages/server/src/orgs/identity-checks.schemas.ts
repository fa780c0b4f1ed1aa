import { Type, type Static } from 'typebox'
import { IDENTITY_CHECK_STATUSES } from '../db/schema.ts'
import { NullableTimestamp, Offset, Timestamp } from '../lib/schemas.ts'
import { displayName } from '../lib/visible-text.ts'

export const IDENTITY_DOCUMENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const
export type IdentityDocumentType = (typeof IDENTITY_DOCUMENT_TYPES)[number]
export const MAX_IDENTITY_DOCUMENT_MB = 10
export const MAX_IDENTITY_DOCUMENT_BYTES = MAX_IDENTITY_DOCUMENT_MB * 1024 * 1024
/**
 * The largest ID photo or scan decoded (a phone photo has 12–50 megapixels, an A4 page scanned at
 * 600 dpi 35): decoding a JPEG holds about 6 bytes a pixel in a PDF worker.
 */
export const MAX_IDENTITY_IMAGE_MEGAPIXELS = 50
export const MAX_LEGAL_NAME_LENGTH = 200
export const MAX_DECISION_REASON_LENGTH = 1000

/** What an org's identity stands at: none, waiting for a decision, approved (valid 365 days), rejected, or expired. */
export const IDENTITY_STATUSES = ['none', ...IDENTITY_CHECK_STATUSES, 'expired'] as const
export type IdentityStatus = (typeof IDENTITY_STATUSES)[number]

const NullableString = Type.Union([Type.String(), Type.Null()])

export const IdentityCheckView = Type.Object(
  {
    status: Type.Enum(IDENTITY_STATUSES, {
      description:
        'none (never checked), pending (submitted, waiting for a decision), approved (sealing works until valid_until), ' +
        'rejected (see decision_reason; submit again), expired (older than 365 days: submit again)',
    }),
    legal_name: Type.Union([Type.String(), Type.Null()], { description: 'the legal name submitted, or confirmed once approved' }),
    submitted_at: NullableTimestamp,
    decided_at: NullableTimestamp,
    valid_until: { ...NullableTimestamp, description: 'until when sealing works on the approved check (also while a renewal is pending)' },
    decision_reason: NullableString,
    verifier: Type.Union([Type.String(), Type.Null()], { description: "who decides: 'manual' (the instance operator) or a provider" }),
  },
  { additionalProperties: false },
)

export const SubmitIdentityCheckQuery = Type.Object(
  {
    legal_name: Type.String({ minLength: 1, maxLength: MAX_LEGAL_NAME_LENGTH, description: "the organisation's registered legal name, printed on every seal" }),
  },
  { additionalProperties: false },
)

export const IdentityDocumentBody = Type.Unsafe<Buffer>({
  type: 'string',
  format: 'binary',
  description:
    `the ID document as the raw body (at most ${MAX_IDENTITY_DOCUMENT_MB} MB): a PDF, PNG or JPEG file that is what its Content-Type says; ` +
    'stored encrypted, shown only to the operator, erased once decided',
})

export const IdentityCheckIdParams = Type.Object({ id: Type.String({ description: 'an identity check id (UUID)' }) }, { additionalProperties: false })

export const ListIdentityChecksQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(IDENTITY_CHECK_STATUSES, { default: 'pending', description: 'pending by default (the queue)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    offset: Type.Optional(Offset),
  },
  { additionalProperties: false },
)

export const IdentityCheckRecord = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    org_id: Type.String({ format: 'uuid' }),
    org_name: Type.String(),
    legal_name: Type.String(),
    status: Type.Enum(IDENTITY_CHECK_STATUSES),
    verifier: Type.String(),
    verifier_reference: NullableString,
    submitted_at: Timestamp,
    submitted_by: Type.Union([Type.Object({ name: Type.String(), email: Type.String() }, { additionalProperties: false }), Type.Null()]),
    document: Type.Union(
      [
        Type.Object(
          {
            filename: Type.String({ description: 'the name the download is saved under: identity-document-<check id>.pdf, .png or .jpg' }),
            content_type: Type.String(),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'null once the check is decided (the document is erased)' },
    ),
    decided_at: NullableTimestamp,
    decided_by: Type.Union([Type.String(), Type.Null()], { description: "'user:<id>' (an operator), 'cli', or the verifier's name" }),
    decision_reason: NullableString,
  },
  { additionalProperties: false },
)

export const IdentityCheckQueue = Type.Object(
  { checks: Type.Array(IdentityCheckRecord, { description: 'oldest first' }), total: Type.Integer() },
  { additionalProperties: false },
)

export const IdentityDecisionBody = Type.Object(
  {
    approve: Type.Boolean(),
    legal_name: Type.Optional(
      displayName(
        Type.String({ minLength: 1, maxLength: MAX_LEGAL_NAME_LENGTH, description: 'the legal name as verified, when it differs from the one submitted' }),
      ),
    ),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_DECISION_REASON_LENGTH, description: 'shown to the owner; required when rejecting' })),
  },
  { additionalProperties: false },
)

export type IdentityCheckView = Static<typeof IdentityCheckView>
export type SubmitIdentityCheckQuery = Static<typeof SubmitIdentityCheckQuery>
export type IdentityCheckRecord = Static<typeof IdentityCheckRecord>
export type IdentityCheckQueue = Static<typeof IdentityCheckQueue>
export type IdentityDecisionBody = Static<typeof IdentityDecisionBody>

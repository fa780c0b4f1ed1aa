import { Type, type Static } from 'typebox'
import { AUDIT_EVENT_TYPES, AUTH_METHODS } from '@signet/vocabulary'
import { DOCUMENT_STATUSES, SIGNER_STATUSES, VOIDED_REASONS } from '../db/schema.ts'
import { MAX_ROLE } from '../templates/fields.ts'
import { PrefillInput } from './prefill.ts'
import { ReminderScheduleInput, Reminders } from './reminders.ts'
import { SignerLanguageInput } from '../signing/i18n/signer-language-setting.ts'
import { NullableTimestamp, Offset, Timestamp } from '../lib/schemas.ts'
import { displayName } from '../lib/visible-text.ts'

export const Email = Type.String({ format: 'email', maxLength: 254, description: 'no leading dot, no consecutive dots, TLD of 2+ letters' })
export const SignerName = Type.Optional(Type.Union([displayName(Type.String({ maxLength: 200 })), Type.Null()]))
const AuthRequired = Type.Optional(Type.Boolean({ description: 'require a one-time e-mail code before the document opens (default false)' }))

export const SingleSignerInput = Type.Object({ email: Email, name: SignerName, auth_required: AuthRequired }, { additionalProperties: false })

export const MAX_COPY_RECIPIENTS = 20

/** Extension: people who get the completed PDF and sign nothing. */
export const CopyRecipients = Type.Array(Type.Object({ email: Email, name: SignerName }, { additionalProperties: false }), {
  maxItems: MAX_COPY_RECIPIENTS,
  description: `extension: up to ${MAX_COPY_RECIPIENTS} people who sign nothing, get no link, and are e-mailed the completed PDF when everyone has signed`,
})

export const MAX_SIGNING_ORDER = 20

/** Extension: sequential signing. */
export const SigningOrder = Type.Integer({
  minimum: 1,
  maximum: MAX_SIGNING_ORDER,
  description:
    "extension: the step at which this signer signs (1, 2, 3…; signers with the same number sign in parallel). Only the lowest unfinished step is invited; the next is invited when it is done. Give it on every signer or on none (none: the template's default steps when it has them, else everyone at once).",
})

/** Extension: a signer's template role name, copied when the document was sent. */
const RoleNameOfSigner = Type.Optional(
  Type.String({ description: 'extension, only when the template named this role: its name when the document was sent ("Landlord")' }),
)

export const PartySignerInput = Type.Object(
  {
    role: Type.Integer({ minimum: 0, maximum: MAX_ROLE, description: "role 0 is the template's Party 1, role 1 Party 2, …" }),
    email: Email,
    name: SignerName,
    auth_required: AuthRequired,
    order: Type.Optional(
      Type.Union([
        SigningOrder,
        Type.Null({ description: "extension: null on every signer sends to everyone at once, whatever the template's default steps" }),
      ]),
    ),
  },
  { additionalProperties: false },
)

/** A multi-party send's signers: one per role of the template. */
export const PartySigners = Type.Array(PartySignerInput, { minItems: 1, maxItems: 20 })

export const CreateDocumentBody = Type.Object(
  {
    template_id: Type.String({ format: 'uuid' }),
    title: Type.Optional(
      displayName(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'extension: the title signers, the list and the certificate show (default: "<template name> — <first signer\'s name or e-mail>")',
        }),
      ),
    ),
    signer: Type.Optional(SingleSignerInput),
    signers: Type.Optional(PartySigners),
    expires_at: Type.Optional(
      Type.String({ format: 'utc-date-time', description: 'UTC ISO-8601 ending in Z (seconds and fraction optional), or "" for none' }),
    ),
    invite_subject: Type.Optional(Type.String({ maxLength: 200 })),
    invite_message: Type.Optional(Type.String({ maxLength: 2000 })),
    reminders: Type.Optional(Reminders),
    cc: Type.Optional(CopyRecipients),
    fields: Type.Optional(PrefillInput),
    language: Type.Optional(SignerLanguageInput),
  },
  { additionalProperties: false, description: 'Exactly one of signer and signers.' },
)

const Sent = Type.Literal('sent')

export const SingleSignerCreated = Type.Object(
  {
    id: Type.String(),
    status: Sent,
    expires_at: NullableTimestamp,
    auth_required: Type.Boolean(),
    domain_warning: Type.Optional(Type.String({ description: 'a likely-mistyped or disposable e-mail domain; never blocks the send' })),
  },
  { additionalProperties: false, title: 'Single-signer document created' },
)

export const MultiPartyCreated = Type.Object(
  {
    id: Type.String(),
    status: Sent,
    expires_at: NullableTimestamp,
    signers: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          role: Type.Integer(),
          email: Type.String(),
          auth_required: Type.Boolean(),
          order: Type.Optional(Type.Integer({ description: "extension: only when the request (or the template's default steps) gave signing orders" })),
          role_name: RoleNameOfSigner,
        },
        { additionalProperties: false },
      ),
    ),
    domain_warnings: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false, title: 'Multi-party document created' },
)

/** Why a voided document was voided: an extension, as the spec's statuses have no "expired". */
const VoidedReason = Type.Union([Type.Enum(VOIDED_REASONS), Type.Null()], {
  description: 'extension: why a voided document was voided — sender (voided by its sender) or expired (its expires_at passed); null unless status is voided',
})

export const DocumentListItem = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    status: Type.Enum(DOCUMENT_STATUSES),
    voided_reason: VoidedReason,
    is_verified_badge: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
    expires_at: NullableTimestamp,
    recipients: Type.Array(
      Type.Object(
        {
          id: Type.String({ description: 'the signer id (POST /documents/{id}/signers/{signerId}/resend)' }),
          name: Type.Union([Type.String(), Type.Null()]),
          email: Type.String(),
          status: Type.Enum(SIGNER_STATUSES),
          role: Type.Integer(),
          waiting: Type.Optional(
            Type.Literal(true, { description: 'extension, only for a signer waiting for their step in a signing order: not invited yet' }),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'extension: the signers in request order' },
    ),
    signed_count: Type.Integer({ description: 'extension: signers who have signed' }),
    signer_count: Type.Integer({ description: 'extension: signers in all' }),
  },
  { additionalProperties: false },
)

export const ListDocumentsQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(DOCUMENT_STATUSES)),
    search: Type.Optional(Type.String({ maxLength: 200, description: "case-insensitive text in the title or in any signer's e-mail address" })),
    include_self_sealed: Type.Optional(Type.Boolean({ default: false, description: 'status=completed hides self-sealed documents unless true' })),
    expires_before: Type.Optional(
      Type.String({
        format: 'utc-date-time',
        description: 'extension: only documents with an expiry before this time (UTC ISO-8601 ending in Z), soonest first',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    offset: Type.Optional(Offset),
  },
  { additionalProperties: false },
)

export const DocumentList = Type.Object(
  {
    documents: Type.Array(DocumentListItem),
    total: Type.Union([Type.Integer(), Type.Null()]),
    limit: Type.Integer(),
    offset: Type.Integer(),
    has_more: Type.Boolean(),
  },
  { additionalProperties: false },
)

export const DocumentCountsQuery = Type.Object(
  { search: ListDocumentsQuery.properties.search, include_self_sealed: ListDocumentsQuery.properties.include_self_sealed },
  { additionalProperties: false },
)

export const DocumentCounts = Type.Object(
  {
    all: Type.Integer({ description: 'every document the search matches, self-sealed included' }),
    by_status: Type.Object(
      { draft: Type.Integer(), sent: Type.Integer(), completed: Type.Integer(), declined: Type.Integer(), voided: Type.Integer() },
      {
        additionalProperties: false,
        description: 'what GET /documents?status=… would total for each status (completed without self-sealed documents unless include_self_sealed)',
      },
    ),
  },
  { additionalProperties: false, description: 'extension: documents per status, for tabs' },
)

export const DocumentView = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    status: Type.Enum(DOCUMENT_STATUSES),
    voided_reason: VoidedReason,
    created_at: Timestamp,
    updated_at: Timestamp,
    expires_at: NullableTimestamp,
    signed_pdf_status: Type.Union([Type.Enum(['pending', 'ready', 'failed']), Type.Null()], {
      description: 'once completed: pending while the signed (or sealed) PDF is being produced, ready, or failed (the operator is alerted)',
    }),
    signed_pdf_error: Type.Union([Type.String(), Type.Null()], { description: 'why the signed PDF is not ready: the last failure' }),
    reminders: Type.Optional({ ...ReminderScheduleInput, description: 'extension, only when the document has a reminder schedule' }),
    cc: Type.Optional(
      Type.Array(Type.Object({ email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: false }), {
        description: 'extension, only when the document has copy recipients: who gets the completed PDF',
      }),
    ),
    language: Type.Optional(
      Type.String({ description: 'extension, only when the document was sent with a language: the language of its signer pages and e-mails' }),
    ),
    signers: Type.Array(
      Type.Object(
        {
          id: Type.String({ description: 'the signer id (POST /documents/{id}/signers/{signerId}/resend)' }),
          role: Type.Integer({ description: 'the template role this signer fills (0 is Party 1)' }),
          email: Type.String(),
          name: Type.Union([Type.String(), Type.Null()]),
          status: Type.Enum(SIGNER_STATUSES),
          signed_at: NullableTimestamp,
          viewed_at: NullableTimestamp,
          declined_at: NullableTimestamp,
          auth_required: Type.Boolean(),
          auth_verified: Type.Boolean(),
          order: Type.Optional(Type.Integer({ description: 'extension, only on a document sent with a signing order: the step at which this signer signs' })),
          invited_at: Type.Optional({
            ...NullableTimestamp,
            description:
              'extension, only on a document sent with a signing order: when the invitation went out; null while the signer waits for an earlier step',
          }),
          role_name: RoleNameOfSigner,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

export const VoidResult = Type.Object({ success: Type.Literal(true) }, { additionalProperties: false })

export const MAX_BULK_RECIPIENTS = 10_000

export const BulkSendBody = Type.Object(
  {
    template_id: Type.String({ format: 'uuid' }),
    recipients: Type.Array(Type.Object({ email: Email, name: SignerName }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: MAX_BULK_RECIPIENTS,
    }),
  },
  { additionalProperties: false },
)

export const BulkSendCreated = Type.Object(
  {
    sent: Type.Integer({ description: 'documents in `documents`' }),
    documents: Type.Array(Type.Object({ documentId: Type.String(), email: Type.String() }, { additionalProperties: false })),
    skipped_cap_reached: Type.Optional(Type.Array(Type.String(), { description: 'not sent: plan allowance or spend cap reached' })),
    skipped_timeout_reached: Type.Optional(Type.Array(Type.String(), { description: 'not sent: the time budget ran out; resubmit these' })),
    note: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)

export type CreateDocumentInput = Static<typeof CreateDocumentBody>
export type SingleSignerCreated = Static<typeof SingleSignerCreated>
export type MultiPartyCreated = Static<typeof MultiPartyCreated>
export type DocumentListItem = Static<typeof DocumentListItem>
export type ListDocumentsQuery = Static<typeof ListDocumentsQuery>
export type DocumentList = Static<typeof DocumentList>
export type DocumentCounts = Static<typeof DocumentCounts>
export type DocumentView = Static<typeof DocumentView>
export type SignedPdfStatus = NonNullable<DocumentView['signed_pdf_status']>
export type BulkSendInput = Static<typeof BulkSendBody>
export type BulkRecipient = BulkSendInput['recipients'][number]
export type BulkSendResult = Static<typeof BulkSendCreated>

export const SignerParams = Type.Object(
  { id: Type.String({ description: 'a document id (UUID)' }), signerId: Type.String({ description: "a signer id (UUID), from the document's signers" }) },
  { additionalProperties: false },
)

export const AuditEventView = Type.Object(
  {
    seq: Type.Integer({ description: '1, 2, 3… within the document' }),
    at: Timestamp,
    event: Type.Enum(AUDIT_EVENT_TYPES, { description: 'what happened; more types may be added, so treat an unknown one as informational' }),
    actor: Type.Union([Type.String(), Type.Null()], { description: "who acted: a signer's e-mail, the sending org (and its client), or null for the system" }),
    signer_id: Type.Union([Type.String(), Type.Null()]),
    ip: Type.Union([Type.String(), Type.Null()]),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    auth_method: Type.Union([Type.Enum(AUTH_METHODS), Type.Null()], { description: 'how the actor proved who they are' }),
    agent_triggered: Type.Boolean({ description: 'an AI agent made the call (MCP)' }),
    data: Type.Record(Type.String(), Type.Unknown()),
    hash: Type.String({ description: "SHA-256 (hex) over this event and the previous event's hash" }),
  },
  { additionalProperties: false },
)

export const DocumentAudit = Type.Object(
  {
    events: Type.Array(AuditEventView),
    chain_valid: Type.Boolean({ description: "every event's hash recomputed and linked to the one before: false means the trail was altered" }),
  },
  { additionalProperties: false },
)

export const ResendAccepted = Type.Object(
  {
    signer_id: Type.String(),
    email: Type.String(),
    message: Type.String(),
  },
  { additionalProperties: false },
)

export type DocumentAudit = Static<typeof DocumentAudit>
export type ResendAccepted = Static<typeof ResendAccepted>

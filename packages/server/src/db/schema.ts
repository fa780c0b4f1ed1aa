import { relations, sql } from 'drizzle-orm'
import {
  bigint,
  bigserial,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { AUDIT_EVENT_TYPES, AUTH_METHODS } from '@signet/vocabulary'
import { PLANS } from './plans.ts'

/** bytea as a Node Buffer/Uint8Array on both drivers. */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
})

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()

export { PLANS, type Plan } from './plans.ts'

/** What a credential may do (actors/scopes.ts checks them): read documents and usage, or send, seal and manage. */
export const SCOPES = ['read', 'write'] as const
export type Scope = (typeof SCOPES)[number]

export const orgs = pgTable('orgs', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  plan: text('plan', { enum: PLANS }).notNull().default('free'),
  /** Credits left from one-time packs (Free plan): spent after the month's included sends, never expire. */
  creditBalance: integer('credit_balance').notNull().default(0),
  /** Self-set limit on billable usage per calendar month, in US cents; null = no cap. */
  spendCapCents: integer('spend_cap_cents'),
  /** The legal name confirmed by the one-time identity check that sealing needs (orgs/identity.ts). */
  legalName: text('legal_name'),
  identityVerifiedAt: timestamp('identity_verified_at', { withTimezone: true, mode: 'date' }),
  /** Every member must sign in to this workspace with a second factor (TOTP or a passkey); set by an owner. */
  requireTwoFactor: boolean('require_two_factor').notNull().default(false),
  /** Extension: the reminders a document sent from this workspace gets unless its request says otherwise; null = none. */
  reminders: jsonb('reminders').$type<ReminderSchedule>(),
  /** Extension: the language signer pages and e-mails use when neither the document nor the signer's browser names one; null = English. */
  signerLanguage: text('signer_language'),
  createdAt: createdAt(),
  /** Extension: the origins (scheme://host[:port]) allowed to frame this workspace's embedded signer pages; empty = none. */
  embedOrigins: jsonb('embed_origins').$type<string[]>().notNull().default([]),
})

/** A document's copy recipient: gets the completed PDF, signs nothing. */
export interface CopyRecipient {
  email: string
  name: string | null
}

/** A template role's name and default step in a signing order (extension); roles without an entry are "Party N", unordered. */
export interface TemplateRole {
  role: number
  name: string
  order?: number
}

/** A value set on a field before sending (extension: `fields` on create), by field index. */
export interface PrefilledValue {
  value: string | number | boolean
  readOnly: boolean
}

/** When an unfinished signer is reminded: first after N days, then every M days, at most K times. */
export interface ReminderSchedule {
  first_after_days: number
  every_days: number
  max: number
}

export const USAGE_KINDS = ['send', 'seal'] as const
export const USAGE_CHANNELS = ['rest', 'bulk', 'mcp'] as const
export type UsageChannel = (typeof USAGE_CHANNELS)[number]
/** How a unit of usage was paid for. */
export const USAGE_BILLING = ['included', 'credit', 'billable', 'unlimited'] as const

/** The metering ledger: one row per metered unit (a document sent, a seal), written in the same transaction. */
export const usageEvents = pgTable(
  'usage_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    documentId: uuid('document_id').references(() => documents.id),
    kind: text('kind', { enum: USAGE_KINDS }).notNull(),
    channel: text('channel', { enum: USAGE_CHANNELS }).notNull(),
    /** The calendar month (UTC) the unit counts in, 'YYYY-MM'. */
    period: text('period').notNull(),
    billing: text('billing', { enum: USAGE_BILLING }).notNull(),
    unitPriceCents: integer('unit_price_cents').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index('usage_events_org_period').on(t.orgId, t.period, t.billing)],
)

/** Credit packs granted to an org (by the operator CLI or a payment provider's webhook). */
export const creditGrants = pgTable(
  'credit_grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    packs: integer('packs').notNull(),
    credits: integer('credits').notNull(),
    /** 'operator' or the payment provider's name. */
    source: text('source').notNull(),
    /** The provider's payment id, unique per source so a replayed payment webhook grants once. */
    reference: text('reference'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('credit_grants_source_reference').on(t.source, t.reference)],
)

/** Fixed-window request counters shared by every server process (rate-limits/consume-rate-limit.ts). */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    /** e.g. 'create:<org id>' */
    key: text('key').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
    /** Requests granted in the window so far: every process's leases together (rate-limits/consume-rate-limit.ts). */
    count: integer('count').notNull(),
    /** How many the last upsert granted (set by the upsert itself, so it can return it). */
    lastGrant: integer('last_grant').notNull().default(1),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
)

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    /** The first characters of the key, shown in listings and used to revoke it. */
    prefix: text('prefix').notNull(),
    /** SHA-256 (hex) of the whole key: the key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    createdAt: createdAt(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    /** What the org called the key in the dashboard (keys made by the CLI have none). */
    name: text('name'),
    /** When the key last authenticated a request; written at most once a minute per key. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    /** The dashboard user who created it (null: the operator CLI). */
    createdByUserId: uuid('created_by_user_id').references(() => users.id),
    /** What the key may do; keys made before scopes existed keep both. */
    scopes: text('scopes', { enum: SCOPES })
      .array()
      .notNull()
      .default(sql`'{read,write}'`),
  },
  (t) => [uniqueIndex('api_keys_key_hash').on(t.keyHash), index('api_keys_org_prefix').on(t.orgId, t.prefix)],
)

/** Content-addressed binary storage (PDFs); see adapters/blob-store.ts. */
export const blobs = pgTable('blobs', {
  sha256: text('sha256').primaryKey(),
  /** Null when the bytes live outside the database (the embedded database's blob files). */
  bytes: bytea('bytes'),
  size: integer('size').notNull(),
  createdAt: createdAt(),
})

/** The spec's five field types, then the extension's (issue 22): radio, dropdown, number, email, name. */
export const FIELD_TYPES = ['signature', 'initials', 'date', 'text', 'checkbox', 'radio', 'dropdown', 'number', 'email', 'name'] as const
export type FieldType = (typeof FIELD_TYPES)[number]

/** A field placed on a template page: page 1-based, PDF points from the page's top-left. */
export interface TemplateField {
  role: number
  type: FieldType
  page: number
  x: number
  y: number
  width: number
  height: number
  required: boolean
  label?: string
  /** Extension: the identifier a send's prefill names the field by, unique in its template. */
  name?: string
  /** Extension: the choices of a radio or dropdown field (and only theirs). */
  options?: string[]
  /** Extension: a number field's bounds, inclusive. */
  min?: number
  max?: number
}

export const templates = pgTable(
  'templates',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    name: text('name').notNull(),
    pageCount: integer('page_count').notNull(),
    pdfSha256: text('pdf_sha256')
      .notNull()
      .references(() => blobs.sha256),
    fields: jsonb('fields').$type<TemplateField[]>().notNull(),
    /** Sorted distinct roles that have at least one field. */
    roles: smallint('roles').array().notNull(),
    /** Extension: names (and default signing order) of the roles; null = "Party 1", "Party 2"… */
    roleNames: jsonb('role_names').$type<TemplateRole[]>(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Deleted in the dashboard: hidden from lists and sends; documents already sent keep it. */
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('templates_org_created').on(t.orgId, t.createdAt, t.id)],
)

export const DOCUMENT_STATUSES = ['draft', 'sent', 'completed', 'declined', 'voided'] as const
/** Why a document is voided: `sender` (POST …/void, the dashboard, the agent tool) or `expired` (its expires_at passed). */
export const VOIDED_REASONS = ['sender', 'expired'] as const
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number]

export const documents = pgTable(
  'documents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    templateId: uuid('template_id').references(() => templates.id),
    title: text('title').notNull(),
    status: text('status', { enum: DOCUMENT_STATUSES }).notNull(),
    isVerifiedBadge: boolean('is_verified_badge').notNull().default(false),
    inviteSubject: text('invite_subject'),
    inviteMessage: text('invite_message'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    /** The workspace member who sent it (a dashboard session or an OAuth grant's person); null for API keys and the CLI. */
    sentByUserId: uuid('sent_by_user_id').references(() => users.id),
    /** When the signers still to sign were warned that it expires within a day (once per document). */
    expiryWarnedAt: timestamp('expiry_warned_at', { withTimezone: true, mode: 'date' }),
    /** Extension: people who sign nothing and get the completed PDF (cc on create); null = none. */
    cc: jsonb('cc').$type<CopyRecipient[]>(),
    /** Extension: this document's reminder schedule (from the request or the workspace's default at send); null = none. */
    reminders: jsonb('reminders').$type<ReminderSchedule>(),
    /** Extension: values set on fields before sending, by field index; null = none. */
    prefill: jsonb('prefill').$type<Record<string, PrefilledValue>>(),
    /** Extension: the language of this document's signer pages and e-mails (e.g. `de`, `pt-BR`); null = the signer's browser, else the workspace's. */
    language: text('language'),
    /** Why a voided document was voided: the sender voided it, or its expires_at passed (null on other statuses). */
    voidedReason: text('voided_reason', { enum: VOIDED_REASONS }),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    /** The bulk-send request that created this document, if any (one document per recipient e-mail). */
    bulkRequestId: uuid('bulk_request_id').references(() => bulkRequests.id),
    bulkRecipient: text('bulk_recipient'),
    /** The flattened signed PDF (blobs.sha256), set by the background renderer once the document is completed. */
    signedPdfSha256: text('signed_pdf_sha256').references(() => blobs.sha256),
    /** Renderer lease and retry time for a completed document whose signed PDF does not exist yet. */
    renderAttempts: integer('render_attempts').notNull().default(0),
    nextRenderAt: timestamp('next_render_at', { withTimezone: true, mode: 'date' }),
    /** The seal's RFC 3161-proven time and its time-stamp authority, once the final PDF is sealed. */
    sealedAt: timestamp('sealed_at', { withTimezone: true, mode: 'date' }),
    sealTsa: text('seal_tsa'),
    /** Why the last attempt to render or seal failed (e.g. every TSA unreachable); cleared on success. */
    sealError: text('seal_error'),
    /** Set when producing the final PDF failed for good (no more retries until an operator asks for one). */
    renderFailedAt: timestamp('render_failed_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('documents_org_created').on(t.orgId, t.createdAt.desc(), t.id.desc()),
    index('documents_org_status_created').on(t.orgId, t.status, t.createdAt.desc(), t.id.desc()),
    index('documents_render_due')
      .on(t.nextRenderAt)
      .where(sql`status = 'completed' and signed_pdf_sha256 is null`),
    index('documents_expiry_due')
      .on(t.expiresAt)
      .where(sql`status = 'sent' and expires_at is not null`),
    uniqueIndex('documents_bulk_recipient').on(t.bulkRequestId, t.bulkRecipient),
  ],
)

export const CERTIFICATE_MODES = ['both', 'separate', 'appended'] as const
export type CertificateMode = (typeof CERTIFICATE_MODES)[number]

/** What an org uploaded to seal itself (a document with is_verified_badge); the sealed result is documents.signed_pdf_sha256. */
export const selfSeals = pgTable('self_seals', {
  documentId: uuid('document_id')
    .primaryKey()
    .references(() => documents.id),
  orgId: uuid('org_id')
    .notNull()
    .references(() => orgs.id),
  sourcePdfSha256: text('source_pdf_sha256')
    .notNull()
    .references(() => blobs.sha256),
  sourceFilename: text('source_filename'),
  sourcePageCount: integer('source_page_count').notNull(),
  certificateMode: text('certificate_mode', { enum: CERTIFICATE_MODES }).notNull(),
  /** The identity check the seal relied on, as it stood when sealing was requested. */
  legalName: text('legal_name').notNull(),
  identityVerifiedAt: timestamp('identity_verified_at', { withTimezone: true, mode: 'date' }).notNull(),
  /** The sealed standalone certificate PDF (modes separate and both), stored with the sealed file. */
  certificatePdfSha256: text('certificate_pdf_sha256').references(() => blobs.sha256),
  createdAt: createdAt(),
})

/**
 * The instance's own small PKI, generated once on first start (seal/instance-pki.ts):
 * a root that verifiers pin (published at /.well-known/signet-root.pem), the seal
 * certificate it issues for document seals, and the certificate of the built-in
 * time-stamp authority. All keys are ECDSA P-256, PKCS#8 PEM.
 */
export interface InstancePki {
  rootCertificatePem: string
  rootPrivateKeyPem: string
  sealCertificatePem: string
  sealPrivateKeyPem: string
  tsaCertificatePem: string
  tsaPrivateKeyPem: string
}

/**
 * The instance's own PKI (seal/instance-pki.ts), generated on first start unless SEAL_P12 is
 * configured: one row, shared by every process on the database. With the embedded
 * database it lives in DATA_DIR like everything else.
 */
export const instancePki = pgTable('instance_pki', {
  id: smallint('id').primaryKey().default(1),
  pki: jsonb('pki').$type<InstancePki>().notNull(),
  createdAt: createdAt(),
})

/** A signer's entry for one field. Dates are filled by the server at signing time. */
export type StoredFieldValue =
  | { type: 'signature' | 'initials'; imageSha256: string }
  | { type: TextualFieldType; text: string }
  | { type: 'number'; number: number }
  | { type: 'checkbox'; checked: boolean }

/** The field types whose entry is one line of text (a radio's or dropdown's is the option chosen). */
export type TextualFieldType = 'date' | 'text' | 'email' | 'name' | 'radio' | 'dropdown'

export const SIGNER_STATUSES = ['pending', 'viewed', 'signed', 'declined'] as const
export type SignerStatus = (typeof SIGNER_STATUSES)[number]

export const signers = pgTable(
  'signers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    documentId: uuid('document_id')
      .notNull()
      .references(() => documents.id),
    role: smallint('role').notNull(),
    /** Extension: the template role's name when the document was sent ("Landlord"); null = "Party N". */
    roleName: text('role_name'),
    /** Position in the create request, so reads list signers in the order they were given. */
    position: smallint('position').notNull(),
    email: text('email').notNull(),
    name: text('name'),
    status: text('status', { enum: SIGNER_STATUSES }).notNull().default('pending'),
    authRequired: boolean('auth_required').notNull().default(false),
    authVerified: boolean('auth_verified').notNull().default(false),
    /** SHA-256 (hex) of the signing-link token; the token itself only exists in the invitation. */
    tokenHash: text('token_hash').notNull(),
    /**
     * Extension: the signer's step in a signing order (1, 2, 3…; equal numbers sign in parallel),
     * null when the document has none (everyone signs at once).
     */
    signingOrder: smallint('signing_order'),
    /** When this signer's invitation went out; null while they wait for an earlier step (their token hash matches no link ever sent). */
    invitedAt: timestamp('invited_at', { withTimezone: true, mode: 'date' }),
    /** Reminders sent so far, and when the next is due (null: none due — no schedule, all sent, or the signer finished). */
    remindersSent: smallint('reminders_sent').notNull().default(0),
    nextReminderAt: timestamp('next_reminder_at', { withTimezone: true, mode: 'date' }),
    signedAt: timestamp('signed_at', { withTimezone: true, mode: 'date' }),
    viewedAt: timestamp('viewed_at', { withTimezone: true, mode: 'date' }),
    declinedAt: timestamp('declined_at', { withTimezone: true, mode: 'date' }),
    declineReason: text('decline_reason'),
    /** What the signer entered, by field index in the template (signature images live in blobs). */
    fieldValues: jsonb('field_values').$type<Record<string, StoredFieldValue>>(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('signers_token_hash').on(t.tokenHash),
    index('signers_document').on(t.documentId, t.position),
    index('signers_reminder_due')
      .on(t.nextReminderAt)
      .where(sql`next_reminder_at is not null`),
  ],
)

/** The one-time e-mail code of a signer with auth_required (one live code per signer; only its hash is kept). */
export const signerCodes = pgTable('signer_codes', {
  signerId: uuid('signer_id')
    .primaryKey()
    .references(() => signers.id),
  codeHash: text('code_hash').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  failedAttempts: integer('failed_attempts').notNull().default(0),
  sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }).notNull(),
})

/** A browser that proved the e-mail code: the cookie holds the secret, the table its hash. */
export const signingSessions = pgTable(
  'signing_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    signerId: uuid('signer_id')
      .notNull()
      .references(() => signers.id),
    secretHash: text('secret_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('signing_sessions_secret_hash').on(t.secretHash)],
)

/**
 * The append-only audit trail: one row per thing that happened to a document.
 * Each row carries the hash of the previous row of the same document, so any
 * edit or deletion breaks the chain (audit/audit-trail.ts); a trigger refuses
 * UPDATE and DELETE outright.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    documentId: uuid('document_id')
      .notNull()
      .references(() => documents.id),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    /** 1, 2, 3… within the document. */
    seq: integer('seq').notNull(),
    type: text('type', { enum: AUDIT_EVENT_TYPES }).notNull(),
    signerId: uuid('signer_id').references(() => signers.id),
    actorEmail: text('actor_email'),
    actorName: text('actor_name'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    authMethod: text('auth_method', { enum: AUTH_METHODS }),
    agentTriggered: boolean('agent_triggered').notNull().default(false),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [uniqueIndex('audit_events_document_seq').on(t.documentId, t.seq), index('audit_events_id_type').on(t.id, t.type)],
)

/** An org's webhook endpoint. The secret signs deliveries, so it is kept (not hashed); it is shown once. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    url: text('url').notNull(),
    secret: text('secret').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('webhook_endpoints_org').on(t.orgId)],
)

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const

/** One event for one endpoint: the exact body sent, and how its attempts went (the delivery log). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    auditEventId: bigint('audit_event_id', { mode: 'number' }).references(() => auditEvents.id),
    event: text('event').notNull(),
    /** The raw JSON body, byte for byte what is signed and sent. */
    payload: text('payload').notNull(),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** When the dispatcher may next try; also a lease while an attempt is in flight. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    lastLatencyMs: integer('last_latency_ms'),
    /** Every attempt: [{at, status_code, latency_ms, error}]. */
    attemptLog: jsonb('attempt_log').$type<{ at: string; status_code: number | null; latency_ms: number; error: string | null }[]>().notNull().default([]),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('webhook_deliveries_due')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('webhook_deliveries_endpoint_created').on(t.endpointId, t.createdAt.desc()),
  ],
)

/**
 * A bulk-send request, keyed by the client's Idempotency-Key: a resubmission resumes it
 * (recipients already created are returned, not created again) or replays its response.
 */
export const bulkRequests = pgTable(
  'bulk_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    idempotencyKey: text('idempotency_key'),
    /** SHA-256 of the request body: the same key with another body is refused. */
    requestHash: text('request_hash').notNull(),
    /** The 201 body, once the request finished. */
    response: jsonb('response'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('bulk_requests_org_key').on(t.orgId, t.idempotencyKey)],
)

export const MAIL_STATUSES = ['pending', 'sent', 'failed'] as const

/**
 * Transactional outbox for e-mail: a message is written in the same transaction as
 * the change that causes it, then delivered by the dispatcher (mail/outbox.ts).
 * Without SMTP_URL this table is the local outbox operators read with `admin mail list`.
 */
export const outboundEmails = pgTable(
  'outbound_emails',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id').references(() => orgs.id),
    documentId: uuid('document_id').references(() => documents.id),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body').notNull(),
    status: text('status', { enum: MAIL_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** When the dispatcher may next try; also a lease while an attempt is in flight. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastError: text('last_error'),
    /** 'smtp' or 'log' (no SMTP_URL configured). */
    transport: text('transport'),
    /** The whole body is a secret (an e-mail code): it is erased once delivered or given up. */
    sensitive: boolean('sensitive').notNull().default(false),
    /** An optional attached file (e.g. the signed PDF), by blob hash, and the name it is attached under. */
    attachmentSha256: text('attachment_sha256').references(() => blobs.sha256),
    attachmentName: text('attachment_name'),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('outbound_emails_due')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('outbound_emails_created').on(t.createdAt),
  ],
)

export const documentRelations = relations(documents, ({ many }) => ({ signers: many(signers) }))
export const signerRelations = relations(signers, ({ one }) => ({
  document: one(documents, { fields: [signers.documentId], references: [documents.id] }),
}))

export const WORKSPACE_ROLES = ['owner', 'admin', 'member'] as const
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number]

/** People who sign in to the dashboard. E-mail is stored lower-cased and is unique. */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    /** argon2id PHC string (accounts/passwords.ts). */
    passwordHash: text('password_hash').notNull(),
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true, mode: 'date' }),
    /** Instance operators see the Operator area (orgs, users, plans, identity checks). */
    isOperator: boolean('is_operator').notNull().default(false),
    /** A disabled user cannot sign in; their sessions are ended when this is set. */
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
    /** Failed logins since the last success, and until when the account refuses logins. */
    failedLogins: integer('failed_logins').notNull().default(0),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The TOTP secret (RFC 6238), encrypted with the instance's secrets key; null while TOTP is off. */
    totpSecretCiphertext: bytea('totp_secret_ciphertext'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true, mode: 'date' }),
    /** The last 30-second time step a code was accepted for: each code works once. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email').on(t.email)],
)

/** Who belongs to which workspace (org), and as what. */
export const memberships = pgTable(
  'memberships',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    role: text('role', { enum: WORKSPACE_ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index('memberships_user').on(t.userId)],
)

/** Dashboard sessions: the cookie holds a random id, the table only its SHA-256. */
export const userSessions = pgTable(
  'user_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    /** The workspace the session acts in (switchable); null when the user belongs to none. */
    orgId: uuid('org_id').references(() => orgs.id),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The absolute end of the session, whatever its activity. */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** How it signed in: 'password', 'password+totp', 'password+passkey', 'password+recovery_code', 'passkey', 'link' (a mailed link). */
    authMethod: text('auth_method').notNull().default('password'),
    /** When this session proved a second factor (or signed in with a passkey); null: password or link only. */
    secondFactorAt: timestamp('second_factor_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('user_sessions_token_hash').on(t.tokenHash), index('user_sessions_user').on(t.userId)],
)

export const ACCOUNT_TOKEN_PURPOSES = ['verify_email', 'reset_password', 'invitation', 'operator_setup'] as const
export type AccountTokenPurpose = (typeof ACCOUNT_TOKEN_PURPOSES)[number]

/** Single-use links mailed or printed to people (verify, reset, invite, operator setup); stored as SHA-256 only. */
export const accountTokens = pgTable(
  'account_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    purpose: text('purpose', { enum: ACCOUNT_TOKEN_PURPOSES }).notNull(),
    userId: uuid('user_id').references(() => users.id),
    /** The invited address (invitations). */
    email: text('email'),
    /** The inviting workspace and the role offered (invitations). */
    orgId: uuid('org_id').references(() => orgs.id),
    role: text('role', { enum: WORKSPACE_ROLES }),
    createdByUserId: uuid('created_by_user_id').references(() => users.id),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('account_tokens_token_hash').on(t.tokenHash),
    index('account_tokens_org').on(t.orgId, t.purpose),
    // The invitations one address received today (accounts/workspace-limits.ts).
    index('account_tokens_invited_email')
      .on(t.email, t.createdAt)
      .where(sql`purpose = 'invitation'`),
  ],
)

export const IDENTITY_CHECK_STATUSES = ['pending', 'approved', 'rejected'] as const
export type IdentityCheckStatus = (typeof IDENTITY_CHECK_STATUSES)[number]

/**
 * Identity checks submitted from the dashboard (orgs/identity-checks.ts). The ID document is
 * personal data: kept encrypted (AES-256-GCM) only until a decision, then erased; the decision,
 * who made it and when remain.
 */
export const identityChecks = pgTable(
  'identity_checks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id),
    legalName: text('legal_name').notNull(),
    status: text('status', { enum: IDENTITY_CHECK_STATUSES }).notNull(),
    submittedByUserId: uuid('submitted_by_user_id').references(() => users.id),
    /** The IdentityVerifier that decides (e.g. 'manual' for the operator, 'stripe_identity'). */
    verifier: text('verifier').notNull(),
    verifierReference: text('verifier_reference'),
    documentFilename: text('document_filename'),
    documentContentType: text('document_content_type'),
    /** IV ‖ ciphertext ‖ tag; null once decided. */
    documentCiphertext: bytea('document_ciphertext'),
    /** The encrypted document in the blob store (its own key in identity_document_keys); null once decided. */
    documentBlobSha256: text('document_blob_sha256'),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    /** Who decided: 'user:<id>', 'cli' or the verifier's name. */
    decidedBy: text('decided_by'),
    decisionReason: text('decision_reason'),
    createdAt: createdAt(),
  },
  (t) => [index('identity_checks_org_created').on(t.orgId, t.createdAt.desc()), index('identity_checks_status').on(t.status, t.createdAt)],
)

/**
 * Each identity document's own AES-256 key, wrapped with the instance's key-encryption key and
 * kept apart from the ciphertext (which is in the blob store): deleting this row at the decision
 * makes the document unreadable wherever copies of its ciphertext remain (crypto-shredding).
 */
export const identityDocumentKeys = pgTable('identity_document_keys', {
  checkId: uuid('check_id')
    .primaryKey()
    .references(() => identityChecks.id),
  wrappedKey: bytea('wrapped_key').notNull(),
  createdAt: createdAt(),
})

/** A user's passkeys (WebAuthn credentials): a second factor, or a sign-in on their own. */
export const passkeys = pgTable(
  'passkeys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    /** The credential id, base64url, as the authenticator gives it. */
    credentialId: text('credential_id').notNull(),
    /** COSE public key. */
    publicKey: bytea('public_key').notNull(),
    /** The authenticator's signature counter (0 for authenticators that keep none). */
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: jsonb('transports').$type<string[]>(),
    /** 'singleDevice' or 'multiDevice' (synced), and whether it is backed up. */
    deviceType: text('device_type'),
    backedUp: boolean('backed_up').notNull().default(false),
    /** What the user called it ("MacBook Touch ID"). */
    name: text('name').notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('passkeys_credential_id').on(t.credentialId), index('passkeys_user').on(t.userId)],
)

/** One-time recovery codes for a lost second factor: ten at a time, stored as SHA-256 only. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('recovery_codes_code_hash').on(t.codeHash), index('recovery_codes_user').on(t.userId)],
)

export const AUTH_CHALLENGE_PURPOSES = ['second_factor', 'passkey_sign_in', 'passkey_registration', 'totp_enrollment'] as const
export type AuthChallengePurpose = (typeof AUTH_CHALLENGE_PURPOSES)[number]

/**
 * Short-lived sign-in and enrolment steps: a password accepted and a second factor awaited
 * (second_factor), a passkey ceremony's challenge, a TOTP secret awaiting its first code. A
 * step started before sign-in is named by a random value in a cookie (only its SHA-256 here);
 * one started from a session is bound to that session.
 */
export const authChallenges = pgTable(
  'auth_challenges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash'),
    purpose: text('purpose', { enum: AUTH_CHALLENGE_PURPOSES }).notNull(),
    userId: uuid('user_id').references(() => users.id),
    sessionId: uuid('session_id'),
    /** A WebAuthn challenge (base64url). */
    challenge: text('challenge'),
    /** A TOTP secret awaiting its first code, encrypted like users.totp_secret_ciphertext. */
    secretCiphertext: bytea('secret_ciphertext'),
    /** Wrong codes tried against this step. */
    attempts: integer('attempts').notNull().default(0),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    uniqueIndex('auth_challenges_token_hash').on(t.tokenHash),
    index('auth_challenges_user').on(t.userId),
    index('auth_challenges_expires').on(t.expiresAt),
  ],
)

/**
 * What happened to an account's security (password changed or reset, second factors added or
 * removed, recovery codes used, two-factor required or reset): who did it (the user, an owner or
 * the operator), from where, when. Append-only; the user sees their own.
 */
export const accountEvents = pgTable(
  'account_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id').references(() => users.id),
    orgId: uuid('org_id').references(() => orgs.id),
    kind: text('kind').notNull(),
    /** Who acted when not the user themself (an operator, a workspace owner). */
    actorUserId: uuid('actor_user_id').references(() => users.id),
    ip: text('ip'),
    userAgent: text('user_agent'),
    details: jsonb('details').$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index('account_events_user').on(t.userId, t.createdAt.desc()), index('account_events_org').on(t.orgId, t.createdAt.desc())],
)

/**
 * The OAuth authorization server's records (oauth/storage-adapter.ts): oidc-provider's sessions,
 * interactions, authorization codes, access and refresh tokens, grants and registered clients,
 * one row per model and id. For codes and tokens the id is the credential itself, so only its
 * SHA-256 is stored (as for every id, so no model can leak one).
 */
export const oauthRecords = pgTable(
  'oauth_records',
  {
    model: text('model').notNull(),
    idHash: text('id_hash').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** The grant a code or token belongs to: revoking the grant deletes them all. */
    grantId: text('grant_id'),
    /** SHA-256 of a session's uid (oidc-provider finds sessions by it). */
    uidHash: text('uid_hash'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    consumedAt: timestamp('consumed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.model, t.idHash] }),
    index('oauth_records_grant').on(t.grantId),
    index('oauth_records_uid').on(t.uidHash),
    index('oauth_records_expires').on(t.expiresAt),
  ],
)

/**
 * What a person granted an OAuth client (an AI agent) in one workspace: Settings → Connected
 * apps. Its id is oidc-provider's grant id; revoking deletes the row, the grant and its tokens.
 */
export const connectedApps = pgTable(
  'connected_apps',
  {
    grantId: text('grant_id').primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    /** The client's name as it registered it (self-asserted) or as its metadata document says. */
    clientName: text('client_name').notNull(),
    clientUri: text('client_uri'),
    /** What the person allowed, a subset of what the client asked for. */
    scopes: text('scopes', { enum: SCOPES }).array().notNull(),
    createdAt: createdAt(),
    /** When a token of the grant last authenticated a call; written at most about once a minute per process. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('connected_apps_org').on(t.orgId, t.createdAt.desc())],
)

/**
 * The authorization server's own secrets, generated on first start and shared by every process
 * on the database: the key that signs ID tokens and the keys that sign its cookies.
 */
export const oauthServerKeys = pgTable('oauth_server_keys', {
  id: smallint('id').primaryKey().default(1),
  keys: jsonb('keys').$type<{ signingJwk: Record<string, unknown>; cookieKeys: string[] }>().notNull(),
  createdAt: createdAt(),
})

/**
 * Extension: a POST made safe to repeat by its `Idempotency-Key` header (http/idempotency.ts): the
 * first request's answer is kept for a day and replayed to a repeat with the same key and body; a
 * repeat while the first still runs, or with another body, is refused. Keys are per org and route.
 */
export const idempotentRequests = pgTable(
  'idempotent_requests',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    /** The method and route pattern, e.g. `POST /api/v1/documents`. */
    route: text('route').notNull(),
    key: text('key').notNull(),
    /** SHA-256 (hex) of the request body, so a key reused for another body is caught. */
    requestHash: text('request_hash').notNull(),
    /** The first answer's status; null while that request still runs. */
    status: smallint('status'),
    responseBody: text('response_body'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.route, t.key] }), index('idempotent_requests_created').on(t.createdAt)],
)

/**
 * Extension: events made for the workspace's live event stream only (`signet trigger`): they reach
 * the streams open at the time (GET /api/v1/events), never a registered webhook endpoint.
 */
export const streamTestEvents = pgTable(
  'stream_test_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    /** The webhook payload as it would be delivered (JSON text, byte for byte). */
    payload: text('payload').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('stream_test_events_org').on(t.orgId, t.id)],
)

/** Extension: each live event stream a workspace opened (`signet listen`): who, from where, how long, how much — its audit record. */
export const eventStreamSessions = pgTable(
  'event_stream_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    /** The API key that opened it (null for other credentials). */
    apiKeyId: uuid('api_key_id'),
    /** How the actor authenticated, as Actor records it (api_key, session, oauth). */
    authMethod: text('auth_method').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }),
    eventsSent: integer('events_sent').notNull().default(0),
    /**
     * The serving process's heartbeat (every 15 s while the stream is open): a session not ended
     * and seen within 45 s counts against the org's cap in every process; one not seen for longer
     * (its process died) is closed by the background sweep.
     */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Why it ended: client_closed, credential_revoked, not_reading, server_shutdown, open_failed or heartbeat_lost (its process stopped beating). */
    endReason: text('end_reason'),
  },
  (t) => [
    index('event_stream_sessions_org').on(t.orgId, t.startedAt.desc()),
    // The live sessions, which the cap counts and the sweep looks through.
    index('event_stream_sessions_live')
      .on(t.orgId, t.lastSeenAt)
      .where(sql`ended_at is null`),
  ],
)

/**
 * Extension: a single-use URL (5 minutes) that opens one signer's page inside the integrator's app
 * (signing/embed). Its first use mints the page's own capability, which the embedded page carries
 * in its URL instead of the e-mailed token. Both are kept only as SHA-256 hashes.
 */
export const embedLinks = pgTable(
  'embed_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => orgs.id, { onDelete: 'cascade' }),
    signerId: uuid('signer_id')
      .notNull()
      .references(() => signers.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Who asked for the URL, as the audit trail names them: `api_key sgn_live_1a2b3c4d`, `session ann@example.com`. */
    vouchedBy: text('vouched_by').notNull(),
    /** The integrator stated it authenticated the signer itself (required for a signer with auth_required). */
    signerAuthenticated: boolean('signer_authenticated').notNull().default(false),
    /** The registered embed origin the page posts its events to; null: none (the page is not framed). */
    parentOrigin: text('parent_origin'),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    usedIp: text('used_ip'),
    usedUserAgent: text('used_user_agent'),
    pageTokenHash: text('page_token_hash'),
    pageExpiresAt: timestamp('page_expires_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('embed_links_token_hash').on(t.tokenHash), uniqueIndex('embed_links_page_token_hash').on(t.pageTokenHash)],
)

/**
 * Each server process running on this database (operator/cluster-nodes.ts), so a node started with
 * other shared settings than the running ones is refused. `fingerprints` holds a SHA-256 per setting
 * (never the value); a row not seen within 45 s belongs to a process that died.
 */
export const clusterNodes = pgTable('cluster_nodes', {
  id: text('id').primaryKey(),
  /** Not a secret, and what the refusal message shows the operator. */
  publicUrl: text('public_url').notNull(),
  fingerprints: jsonb('fingerprints').$type<Record<string, string>>().notNull(),
  startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})

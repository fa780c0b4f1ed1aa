import { relations, sql } from 'drizzle-orm'
import {
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { PLANS } from '../orgs/plans.ts'

/** bytea as a Node Buffer/Uint8Array on both drivers. */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
})

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()

export { PLANS, type Plan } from '../orgs/plans.ts'

export const orgs = pgTable('orgs', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  plan: text('plan', { enum: PLANS }).notNull().default('free'),
  createdAt: createdAt(),
})

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
  },
  (t) => [uniqueIndex('api_keys_key_hash').on(t.keyHash), index('api_keys_org_prefix').on(t.orgId, t.prefix)],
)

/** Content-addressed binary storage (PDFs); see adapters/blob-store.ts. */
export const blobs = pgTable('blobs', {
  sha256: text('sha256').primaryKey(),
  bytes: bytea('bytes').notNull(),
  size: integer('size').notNull(),
  createdAt: createdAt(),
})

export const FIELD_TYPES = ['signature', 'initials', 'date', 'text', 'checkbox'] as const
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
    createdAt: createdAt(),
  },
  (t) => [index('templates_org_created').on(t.orgId, t.createdAt, t.id)],
)

export const DOCUMENT_STATUSES = ['draft', 'sent', 'completed', 'declined', 'voided'] as const
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
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('documents_org_created').on(t.orgId, t.createdAt.desc(), t.id.desc()),
    index('documents_org_status_created').on(t.orgId, t.status, t.createdAt.desc(), t.id.desc()),
  ],
)

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
    /** Position in the create request, so reads list signers in the order they were given. */
    position: smallint('position').notNull(),
    email: text('email').notNull(),
    name: text('name'),
    status: text('status', { enum: SIGNER_STATUSES }).notNull().default('pending'),
    authRequired: boolean('auth_required').notNull().default(false),
    authVerified: boolean('auth_verified').notNull().default(false),
    /** SHA-256 (hex) of the signing-link token; the token itself only exists in the invitation. */
    tokenHash: text('token_hash').notNull(),
    signedAt: timestamp('signed_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('signers_token_hash').on(t.tokenHash), index('signers_document').on(t.documentId, t.position)],
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

import { AUDIT_EVENT_LABELS as SHARED_AUDIT_EVENT_LABELS, AUTH_METHOD_LABELS as SHARED_AUTH_METHOD_LABELS } from '@signet/vocabulary'
import type { operations } from '@signet/sdk/openapi'

/**
 * The words the dashboard shows for the API's enums. Each map is a Record over the enum of
 * the generated schema, so a status the server adds fails to compile here until it has words.
 * The words the server also shows people (parties, audit events, sign-in methods on the
 * certificate) come from @signet/vocabulary.
 */

type DocumentView = operations['getDocument']['responses'][200]['content']['application/json']
export type DocumentStatus = DocumentView['status']
export type SignerStatus = DocumentView['signers'][number]['status']
/** Why a voided document was voided: its sender voided it, or its expiry date passed. */
export type VoidedReason = NonNullable<DocumentView['voided_reason']>

/** What a document's status means to its sender. An expired document is `voided` in the API and "Expired" here. */
export const DOCUMENT_STATUS_LABELS: Record<DocumentStatus | 'expired', string> = {
  draft: 'Draft',
  sent: 'Waiting for signatures',
  completed: 'Completed',
  declined: 'Declined',
  voided: 'Voided',
  expired: 'Expired',
}

/**
 * A signer's status as a person reads it. A signer of a signing order whose step has not come is
 * `pending` in the API but was never e-mailed: "Not invited yet" while the document waits for
 * signatures, "Not invited" once it ended without reaching them.
 */
export type SignerBadgeStatus = SignerStatus | 'not_invited_yet' | 'not_invited'

export const SIGNER_STATUS_LABELS: Record<SignerBadgeStatus, string> = {
  pending: 'Not opened yet',
  viewed: 'Opened',
  signed: 'Signed',
  declined: 'Declined',
  not_invited_yet: 'Not invited yet',
  not_invited: 'Not invited',
}

/** The status a person reads: only a signer of a signing order has `invited_at`, null while their step has not come. */
export function signerStatusOf(
  signer: { status: SignerStatus; invited_at?: string | null | undefined },
  document: { status: DocumentStatus },
): SignerBadgeStatus {
  if (signer.status !== 'pending' || signer.invited_at !== null) return signer.status
  return document.status === 'sent' ? 'not_invited_yet' : 'not_invited'
}

/** The status a person reads: a voided document whose expiry passed is "expired". */
export function documentStatusOf(document: { status: DocumentStatus; voided_reason?: VoidedReason | null | undefined }): DocumentStatus | 'expired' {
  return document.status === 'voided' && document.voided_reason === 'expired' ? 'expired' : document.status
}

type IdentityCheckView = operations['getIdentityCheck']['responses'][200]['content']['application/json']
/** The workspace's check (the operator's queue lists the pending, approved and rejected ones). */
export type IdentityCheckStatus = IdentityCheckView['status']

export const IDENTITY_CHECK_STATUS_LABELS: Record<IdentityCheckStatus, string> = {
  none: 'Not submitted',
  pending: 'Waiting for a decision',
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
}

type WorkspaceView = operations['getMe']['responses'][200]['content']['application/json']['workspaces'][number]
export type Plan = WorkspaceView['plan']

/** A plan by its name, as the pricing and the Billing page call it. */
export const PLAN_LABELS: Record<Plan, string> = { free: 'Free', pro: 'Pro', team: 'Team', business: 'Business' }

/** What a person is in a workspace. */
export const WORKSPACE_ROLE_LABELS: Record<WorkspaceView['role'], string> = { owner: 'Owner', admin: 'Admin', member: 'Member' }

type DeliveryView = operations['listWebhookDeliveries']['responses'][200]['content']['application/json']['deliveries'][number]
export type WebhookDeliveryStatus = DeliveryView['status']

export const WEBHOOK_DELIVERY_STATUS_LABELS: Record<WebhookDeliveryStatus, string> = {
  pending: 'Not delivered yet',
  delivered: 'Delivered',
  failed: 'Failed',
}

/** The API has no status for these, only a key's revoked_at and an endpoint's enabled: the words for what they mean. */
export type ApiKeyStatus = 'active' | 'revoked'
export type WebhookEndpointStatus = 'enabled' | 'disabled'

export const API_KEY_STATUS_LABELS: Record<ApiKeyStatus, string> = { active: 'Active', revoked: 'Revoked' }

type ApiKeyScope = operations['listApiKeys']['responses'][200]['content']['application/json']['keys'][number]['scopes'][number]
/** A key's scopes as the dashboard offers them: read and write (the default), or read only. */
export type ApiKeyAccess = 'read-write' | 'read'
export const API_KEY_ACCESS_LABELS: Record<ApiKeyAccess, string> = { 'read-write': 'Read and write', read: 'Read only' }
export const API_KEY_ACCESS_SCOPES: Record<ApiKeyAccess, ApiKeyScope[]> = { 'read-write': ['read', 'write'], read: ['read'] }
/** A key reads, or reads and writes: the server refuses a key that writes without reading. */
export const apiKeyAccessOf = (scopes: readonly ApiKeyScope[]): ApiKeyAccess => (scopes.includes('write') ? 'read-write' : 'read')
/** What a credential may do, an API key or an app connected with OAuth: the same two choices and words everywhere. */
export type Access = ApiKeyAccess
export const ACCESS_LABELS: Record<Access, string> = API_KEY_ACCESS_LABELS
/** An OAuth grant may also be write only, when the app asked for nothing else. */
export type GrantAccess = Access | 'write'
export const GRANT_ACCESS_LABELS: Record<GrantAccess, string> = { ...ACCESS_LABELS, write: 'Send only' }
export const grantAccessOf = (scopes: readonly ApiKeyScope[]): GrantAccess => (scopes.includes('read') ? apiKeyAccessOf(scopes) : 'write')
export const WEBHOOK_ENDPOINT_STATUS_LABELS: Record<WebhookEndpointStatus, string> = { enabled: 'Enabled', disabled: 'Disabled' }

type AuditEventView = operations['getDocumentAudit']['responses'][200]['content']['application/json']['events'][number]

/** The server's words for an audit event ("Invitation sent again"), typed by the API's enum so the two cannot drift. */
export const AUDIT_EVENT_LABELS: Record<AuditEventView['event'], string> = SHARED_AUDIT_EVENT_LABELS
export const AUTH_METHOD_LABELS: Record<NonNullable<AuditEventView['auth_method']>, string> = SHARED_AUTH_METHOD_LABELS

export { partyLabel } from '@signet/vocabulary'

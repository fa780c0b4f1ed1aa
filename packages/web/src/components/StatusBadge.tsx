import {
  API_KEY_STATUS_LABELS,
  DOCUMENT_STATUS_LABELS,
  documentStatusOf,
  IDENTITY_CHECK_STATUS_LABELS,
  SIGNER_STATUS_LABELS,
  WEBHOOK_DELIVERY_STATUS_LABELS,
  WEBHOOK_ENDPOINT_STATUS_LABELS,
  type ApiKeyStatus,
  type DocumentStatus,
  type IdentityCheckStatus,
  type SignerBadgeStatus,
  type VoidedReason,
  type WebhookDeliveryStatus,
  type WebhookEndpointStatus,
} from '../lib/vocabulary.ts'
import { Badge, type BadgeTone } from './Badge.tsx'

const documentTones: Record<keyof typeof DOCUMENT_STATUS_LABELS, BadgeTone> = {
  draft: 'neutral',
  sent: 'info',
  completed: 'success',
  declined: 'danger',
  voided: 'neutral',
  expired: 'warning',
}

const signerTones: Record<SignerBadgeStatus, BadgeTone> = {
  pending: 'neutral',
  viewed: 'info',
  signed: 'success',
  declined: 'danger',
  not_invited_yet: 'neutral',
  not_invited: 'neutral',
}

const identityCheckTones: Record<IdentityCheckStatus, BadgeTone> = {
  none: 'neutral',
  pending: 'info',
  approved: 'success',
  rejected: 'danger',
  expired: 'warning',
}

const deliveryTones: Record<WebhookDeliveryStatus, BadgeTone> = {
  pending: 'info',
  delivered: 'success',
  failed: 'danger',
}

const apiKeyTones: Record<ApiKeyStatus, BadgeTone> = { active: 'success', revoked: 'neutral' }
const endpointTones: Record<WebhookEndpointStatus, BadgeTone> = { enabled: 'success', disabled: 'neutral' }

/** A document's status in words: "Waiting for signatures", "Completed", "Expired" (a document voided because its expiry passed), … */
export function DocumentStatusBadge({ document }: { document: { status: DocumentStatus; voided_reason?: VoidedReason | null | undefined } }) {
  const status = documentStatusOf(document)
  return <Badge tone={documentTones[status]}>{DOCUMENT_STATUS_LABELS[status]}</Badge>
}

/** A signer's status in words: "Not opened yet", "Opened", "Signed", "Declined", or "Not invited yet" for a signer whose step has not come (signerStatusOf). */
export function SignerStatusBadge({ status }: { status: SignerBadgeStatus }) {
  return <Badge tone={signerTones[status]}>{SIGNER_STATUS_LABELS[status]}</Badge>
}

/** A workspace's identity check: "Not submitted", "Waiting for a decision", "Approved", "Rejected", "Expired". */
export function IdentityCheckStatusBadge({ status }: { status: IdentityCheckStatus }) {
  return <Badge tone={identityCheckTones[status]}>{IDENTITY_CHECK_STATUS_LABELS[status]}</Badge>
}

/** A webhook delivery: "Not delivered yet", "Delivered", "Failed". */
export function WebhookDeliveryStatusBadge({ status }: { status: WebhookDeliveryStatus }) {
  return <Badge tone={deliveryTones[status]}>{WEBHOOK_DELIVERY_STATUS_LABELS[status]}</Badge>
}

/** An API key: "Active" or "Revoked". */
export function ApiKeyStatusBadge({ status }: { status: ApiKeyStatus }) {
  return <Badge tone={apiKeyTones[status]}>{API_KEY_STATUS_LABELS[status]}</Badge>
}

/** A webhook endpoint: "Enabled" or "Disabled". */
export function WebhookEndpointStatusBadge({ status }: { status: WebhookEndpointStatus }) {
  return <Badge tone={endpointTones[status]}>{WEBHOOK_ENDPOINT_STATUS_LABELS[status]}</Badge>
}

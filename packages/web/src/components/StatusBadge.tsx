import { DOCUMENT_STATUS_LABELS, documentStatusOf, SIGNER_STATUS_LABELS, type DocumentStatus, type SignerStatus, type VoidedReason } from '../lib/vocabulary.ts'
import { Badge, type BadgeTone } from './Badge.tsx'

const documentTones: Record<keyof typeof DOCUMENT_STATUS_LABELS, BadgeTone> = {
  draft: 'neutral',
  sent: 'info',
  completed: 'success',
  declined: 'danger',
  voided: 'neutral',
  expired: 'warning',
}

const signerTones: Record<SignerStatus, BadgeTone> = {
  pending: 'neutral',
  viewed: 'info',
  signed: 'success',
  declined: 'danger',
}

/** A document's status in words: "Waiting for signatures", "Completed", "Expired" (a document voided because its expiry passed), … */
export function DocumentStatusBadge({ document }: { document: { status: DocumentStatus; voided_reason?: VoidedReason | null | undefined } }) {
  const status = documentStatusOf(document)
  return <Badge tone={documentTones[status]}>{DOCUMENT_STATUS_LABELS[status]}</Badge>
}

/** A signer's status in words: "Not opened yet", "Opened", "Signed", "Declined". */
export function SignerStatusBadge({ status }: { status: SignerStatus }) {
  return <Badge tone={signerTones[status]}>{SIGNER_STATUS_LABELS[status]}</Badge>
}

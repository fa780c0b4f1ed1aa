import { AppError } from '../errors.ts'
import { forSigner } from './i18n/error-texts.ts'
import type { SignerContext } from './signer-context.ts'

/** Why a signing link can no longer change anything, or null while the signer may act. */
export type Closure = 'voided' | 'expired' | 'declined' | 'completed' | 'signed'

type Document = SignerContext['document']

/** Past its expiry but not yet swept: treated exactly as expired. */
export const isPastExpiry = (document: Pick<Document, 'expiresAt'>, now: Date): boolean =>
  document.expiresAt !== null && document.expiresAt.getTime() <= now.getTime()

export function closureOf(document: Document, signerStatus: SignerContext['signer']['status'], now: Date): Closure | null {
  switch (document.status) {
    case 'sent':
      if (isPastExpiry(document, now)) return 'expired'
      return signerStatus === 'signed' ? 'signed' : null
    case 'voided':
      // An expired document is voided by the expiry sweep at (or after) its expiry time.
      return document.expiresAt && document.updatedAt.getTime() >= document.expiresAt.getTime() ? 'expired' : 'voided'
    case 'declined':
      return 'declined'
    case 'completed':
      return 'completed'
    case 'draft':
      return 'voided'
  }
}

export function closedError(closure: Closure, document: Pick<Document, 'expiresAt'>): AppError {
  switch (closure) {
    case 'expired': {
      const error = new AppError(
        'gone',
        `This signing request expired on ${document.expiresAt?.toUTCString() ?? 'its expiry date'}, so it can no longer be signed.`,
      )
      // An expired document always has its expiry time; without one the English stands.
      return document.expiresAt ? forSigner(error, 'error.closed.expired', { date: document.expiresAt }) : error
    }
    case 'voided':
      return forSigner(new AppError('conflict', 'The sender cancelled this signing request, so it can no longer be signed.'), 'error.closed.voided')
    case 'declined':
      return forSigner(new AppError('conflict', 'This document was declined, so it can no longer be signed.'), 'error.closed.declined')
    case 'completed':
      return forSigner(new AppError('conflict', 'This document is already complete: everyone has signed it.'), 'error.closed.completed')
    case 'signed':
      return forSigner(new AppError('conflict', 'You have already signed this document.'), 'error.closed.signed')
  }
}

/** Throws the closure's error unless the signer may still act on the document. */
export function assertOpen(context: Pick<SignerContext, 'document' | 'signer'>, now: Date): void {
  const closure = closureOf(context.document, context.signer.status, now)
  if (closure) throw closedError(closure, context.document)
}

import type { Services } from '../services.ts'
import { pageSizesOf } from '../templates/page-sizes.ts'
import { codeStepLockedMessage, codeStepLockedUntil, maskEmail } from './email-code.ts'
import { fieldsOf, type SignerContext } from './signer-context.ts'
import { closureOf, type Closure } from './signing-rules.ts'
import { codePage, signingPage, statusPage, type StatusPageModel } from './web/pages.ts'

/**
 * Which page a signing link shows: a closed document's status, the e-mail-code step,
 * or the document with the signer's fields. No document content (not even its page
 * sizes) is put in a page before the code step is passed.
 */
export async function renderSigningView(
  services: Pick<Services, 'db' | 'clock' | 'blobs' | 'pdfWork'>,
  context: SignerContext,
  options: { token: string; hasAccess: boolean },
): Promise<string> {
  const now = services.clock.now()
  const closure = closureOf(context.document, context.signer.status, now)
  if (closure) return statusPage(closedPage(closure, context, options))
  const { document, signer } = context
  if (!options.hasAccess) {
    const lockedUntil = await codeStepLockedUntil(services, context)
    if (lockedUntil)
      return statusPage({
        heading: 'Too many code attempts',
        title: document.title,
        tone: 'warning',
        message: codeStepLockedMessage(context.orgName, lockedUntil),
      })
    return codePage({ token: options.token, title: document.title, orgName: context.orgName, maskedEmail: maskEmail(signer.email) })
  }

  return signingPage({
    token: options.token,
    title: document.title,
    orgName: context.orgName,
    signer: { name: signer.name, email: signer.email },
    pages: await pageSizesOf(services, context.template.pdfSha256),
    fields: fieldsOf(context),
    today: now.toISOString().slice(0, 10),
    expiresAt: document.expiresAt?.toISOString() ?? null,
  })
}

function closedPage(closure: Closure, context: SignerContext, options: { token: string; hasAccess: boolean }): StatusPageModel {
  const title = context.document.title
  switch (closure) {
    case 'completed': {
      const ready = context.document.signedPdfSha256 !== null
      return {
        heading: 'Everyone has signed',
        title,
        tone: 'success',
        message: ready
          ? 'This document is complete. A copy of the signed PDF was e-mailed to you.'
          : 'This document is complete. The signed PDF is being prepared and will be e-mailed to you shortly.',
        ...(ready && options.hasAccess ? { downloadUrl: `/sign/${options.token}/signed.pdf` } : {}),
      }
    }
    case 'signed':
      return {
        heading: 'You have signed',
        title,
        tone: 'success',
        message: 'Thank you. We are waiting for the other parties; when everyone has signed, you will receive the signed PDF by e-mail.',
      }
    case 'declined':
      return context.signer.status === 'declined'
        ? {
            heading: 'You declined this document',
            title,
            tone: 'info',
            message: `You declined to sign. ${context.orgName} can see that you declined; nothing more is needed from you.`,
          }
        : {
            heading: 'This document was declined',
            title,
            tone: 'warning',
            message: 'Another party declined to sign, so the signature request is closed. You no longer need to sign it.',
          }
    case 'voided':
      return {
        heading: 'This signing request was cancelled',
        title,
        tone: 'warning',
        message: `${context.orgName} cancelled this signature request. You no longer need to sign it.`,
      }
    case 'expired':
      return {
        heading: 'This signing request has expired',
        title,
        tone: 'warning',
        message: `It expired on ${context.document.expiresAt?.toUTCString() ?? 'its expiry date'}. Ask ${context.orgName} to send it again if you still need to sign.`,
      }
  }
}

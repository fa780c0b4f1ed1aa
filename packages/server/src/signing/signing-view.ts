import type { Services } from '../services.ts'
import { pageSizesOf } from '../templates/page-sizes.ts'
import { codeStepLockedUntil, maskEmail } from './email-code.ts'
import { translator, type Translator } from './i18n/catalog.ts'
import type { SignerLanguage } from './i18n/languages.ts'
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
  options: { token: string; hasAccess: boolean; language: SignerLanguage },
): Promise<string> {
  const now = services.clock.now()
  const t = translator(options.language)
  const closure = closureOf(context.document, context.signer.status, now)
  if (closure) return statusPage({ t, token: options.token, ...closedPage(t, closure, context, options) })
  const { document, signer } = context
  if (!options.hasAccess) {
    const lockedUntil = await codeStepLockedUntil(services, context)
    if (lockedUntil)
      return statusPage({
        t,
        token: options.token,
        heading: t.text('status.locked.heading'),
        title: document.title,
        tone: 'warning',
        message: t.text('status.locked.message', { date: t.dateTime(lockedUntil), org: context.orgName }),
      })
    return codePage({ t, token: options.token, title: document.title, orgName: context.orgName, maskedEmail: maskEmail(signer.email) })
  }

  return signingPage({
    t,
    token: options.token,
    title: document.title,
    orgName: context.orgName,
    signer: { name: signer.name, email: signer.email, roleName: signer.roleName },
    pages: await pageSizesOf(services, context.template.pdfSha256),
    fields: fieldsOf(context),
    today: now.toISOString().slice(0, 10),
    expiresAt: document.expiresAt,
    parentOrigin: context.embedded?.parentOrigin ?? null,
  })
}

type ClosedPage = Omit<StatusPageModel, 't' | 'token'>

function closedPage(t: Translator, closure: Closure, context: SignerContext, options: { token: string; hasAccess: boolean }): ClosedPage {
  const title = context.document.title
  const org = context.orgName
  switch (closure) {
    case 'completed': {
      const ready = context.document.signedPdfSha256 !== null
      return {
        heading: t.text('status.completed.heading'),
        title,
        tone: 'success',
        message: t.text(ready ? 'status.completed.ready' : 'status.completed.pending'),
        ...(ready && options.hasAccess ? { downloadUrl: `/sign/${options.token}/signed.pdf` } : {}),
      }
    }
    case 'signed':
      return {
        heading: t.text('status.signed.heading'),
        title,
        tone: 'success',
        message: signedAtNote(t, context, t.text('status.signed.message')),
      }
    case 'declined':
      return context.signer.status === 'declined'
        ? { heading: t.text('status.youDeclined.heading'), title, tone: 'info', message: t.text('status.youDeclined.message', { org }) }
        : { heading: t.text('status.declined.heading'), title, tone: 'warning', message: t.text('status.declined.message') }
    case 'voided':
      return { heading: t.text('status.voided.heading'), title, tone: 'warning', message: t.text('status.voided.message', { org }) }
    case 'expired':
      return {
        heading: t.text('status.expired.heading'),
        title,
        tone: 'warning',
        message: t.text('status.expired.message', { date: context.document.expiresAt ? t.dateTime(context.document.expiresAt) : '—', org }),
      }
  }
}

/** The page after signing says when, in the signer's language (the signing time as the audit trail has it). */
function signedAtNote(t: Translator, context: SignerContext, message: string): string {
  return context.signer.signedAt ? `${t.text('status.signedAt', { date: t.dateTime(context.signer.signedAt) })} ${message}` : message
}

/**
 * Plain-text and HTML bodies of the mails the service sends. User-supplied text is always escaped in HTML.
 * Mails to signers and copy recipients are written in their language (signing/i18n: the document's, else
 * the workspace's, else English); mails to members of a workspace are in English.
 */
import { translator, type Translator } from '../signing/i18n/catalog.ts'
import { DEFAULT_LANGUAGE, directionOf, type SignerLanguage } from '../signing/i18n/languages.ts'

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

const paragraphs = (text: string): string =>
  text
    .split(/\n{2,}/)
    .map((p) => `<p style="margin:0 0 16px">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('')

function layout(inner: string, t: Translator = translator(DEFAULT_LANGUAGE)): string {
  return `<!doctype html><html lang="${t.language}" dir="${directionOf(t.language)}"><body style="margin:0;background:#f4f5f7;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#1f2933">
<div style="max-width:560px;margin:32px auto;background:#fff;border-radius:8px;padding:32px">${inner}
<p style="margin:24px 0 0;font-size:12px;color:#7b8794">${escapeHtml(t.text('mail.footer'))}</p></div></body></html>`
}

export type Mail = { subject: string; text: string; html: string }

const greetingFor = (name: string | null, t: Translator = translator(DEFAULT_LANGUAGE)) =>
  name ? t.text('mail.greeting', { name }) : t.text('mail.greetingNoName')

/** A mail to a signer or copy recipient: greeting and body paragraphs, in their language. */
function signerMail(t: Translator, subject: string, name: string | null, body: string): Mail {
  const greeting = greetingFor(name, t)
  return { subject, text: `${greeting}\n\n${body}`, html: layout(paragraphs(greeting) + paragraphs(body), t) }
}

export interface InvitationMailInput {
  orgName: string
  title: string
  signerName: string | null
  link: string
  expiresAt: Date | null
  customSubject?: string | undefined
  customMessage?: string | undefined
  /** A reminder, or the warning the day before expiry: the same invitation, said to be one, with a new link. */
  reason?: 'reminder' | 'expiring' | undefined
  /** The template's name of the signer's role ("Landlord"); null or absent for an unnamed one. */
  roleName?: string | null | undefined
  language: SignerLanguage
}

export function invitationMail(input: InvitationMailInput): Mail {
  const t = translator(input.language)
  const names = { org: input.orgName, title: input.title }
  // An empty custom subject means none (as an empty message does): never send a blank subject line.
  const invitationSubject = input.customSubject || t.text('mail.invitation.subject', names)
  const greeting = greetingFor(input.signerName, t)
  const newLink = t.text('mail.invitation.newLink')
  const { subject, intro } =
    input.reason === 'reminder'
      ? {
          subject: t.text('mail.invitation.reminderSubject', { subject: invitationSubject }),
          intro: `${t.text('mail.invitation.reminderIntro', names)} ${newLink}`,
        }
      : input.reason === 'expiring'
        ? {
            subject: t.text('mail.invitation.expiringSubject', { subject: invitationSubject }),
            intro: `${t.text('mail.invitation.expiringIntro', names)} ${newLink}`,
          }
        : { subject: invitationSubject, intro: t.text('mail.invitation.intro', names) }
  const role = input.roleName ? t.text('mail.invitation.role', { role: input.roleName }) : ''
  const expiry = input.expiresAt ? t.text('mail.invitation.expires', { date: t.dateTime(input.expiresAt) }) : ''
  const personal = t.text('mail.invitation.personal')
  const text = [greeting, intro, role, input.customMessage ?? '', t.text('mail.invitation.open', { link: input.link }), expiry, personal]
    .filter(Boolean)
    .join('\n\n')
  const html = layout(
    `${paragraphs(greeting)}${paragraphs(intro)}${role ? paragraphs(role) : ''}${input.customMessage ? `<blockquote dir="auto" style="margin:0 0 16px;padding:12px 16px;border-inline-start:3px solid #3b82f6;background:#f0f6ff">${paragraphs(input.customMessage)}</blockquote>` : ''}
<p style="margin:24px 0"><a href="${escapeHtml(input.link)}" style="background:#1d4ed8;color:#fff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:600">${escapeHtml(t.text('mail.invitation.button'))}</a></p>
${expiry ? paragraphs(expiry) : ''}<p style="font-size:13px;color:#52606d">${escapeHtml(t.text('mail.pasteLink', { link: input.link }))}<br>${escapeHtml(personal)}</p>`,
    t,
  )
  return { subject, text, html }
}

export function voidedMail(input: { orgName: string; title: string; signerName: string | null; language: SignerLanguage }): Mail {
  const t = translator(input.language)
  const names = { org: input.orgName, title: input.title }
  return signerMail(t, t.text('mail.voided.subject', names), input.signerName, t.text('mail.voided.body', names))
}

export function codeMail(input: { title: string; signerName: string | null; code: string; validMinutes: number; language: SignerLanguage }): Mail {
  const t = translator(input.language)
  // Never the code itself: subjects show in notifications, mail lists and logs that bodies never reach.
  const subject = t.text('mail.code.subject', { title: input.title })
  const body = t.text('mail.code.body', { title: input.title, minutes: input.validMinutes })
  const ignore = t.text('mail.code.ignore')
  const greeting = greetingFor(input.signerName, t)
  return {
    subject,
    text: [greeting, body, input.code, ignore].join('\n\n'),
    html: layout(
      `${paragraphs(greeting)}${paragraphs(body)}<p dir="ltr" style="margin:24px 0;font-size:32px;letter-spacing:8px;font-weight:700;font-family:Menlo,Consolas,monospace">${escapeHtml(input.code)}</p>${paragraphs(ignore)}`,
      t,
    ),
  }
}

export function completedMail(input: {
  orgName: string
  title: string
  signerName: string | null
  signerCount: number
  copy?: boolean
  language: SignerLanguage
}): Mail {
  const t = translator(input.language)
  const values = { org: input.orgName, title: input.title, count: input.signerCount }
  const body = t.text(input.copy ? 'mail.completed.copyBody' : 'mail.completed.body', values)
  return signerMail(t, t.text('mail.completed.subject', values), input.signerName, body)
}

export function declinedMail(input: { orgName: string; title: string; signerName: string | null; declinedBy: string; language: SignerLanguage }): Mail {
  const t = translator(input.language)
  const values = { org: input.orgName, title: input.title, person: input.declinedBy }
  return signerMail(t, t.text('mail.declined.subject', values), input.signerName, t.text('mail.declined.body', values))
}

/** To the sender (or the workspace's owners) when a document expired before everyone signed. */
export function expiredNoticeMail(input: { title: string; name: string | null; unsigned: string[]; link: string }): Mail {
  return linkMail({
    subject: `"${input.title}" expired before everyone signed`,
    name: input.name,
    lines: [
      `"${input.title}" reached its expiry date and can no longer be signed.`,
      `Not signed by: ${input.unsigned.join(', ')}.`,
      'To go on, send the document again.',
    ],
    button: 'Open the document',
    link: input.link,
    ignore: 'You get this because you sent the document, or own the workspace it was sent from.',
  })
}

/** A mail whose point is one link: a greeting, what happened, a button, the link in clear, and a note for whoever did not ask. */
export function linkMail(input: { subject: string; name: string | null; lines: string[]; button: string; link: string; ignore: string }): Mail {
  const greeting = greetingFor(input.name)
  return {
    subject: input.subject,
    text: [greeting, ...input.lines, `${input.button}: ${input.link}`, input.ignore].join('\n\n'),
    html: layout(
      `${paragraphs(greeting)}${input.lines.map(paragraphs).join('')}
<p style="margin:24px 0"><a href="${escapeHtml(input.link)}" style="background:#1d4ed8;color:#fff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:600">${escapeHtml(input.button)}</a></p>
<p style="font-size:13px;color:#52606d">Or paste this link into your browser: ${escapeHtml(input.link)}</p>${paragraphs(input.ignore)}`,
    ),
  }
}

export function verifyEmailMail(input: { name: string; link: string; validHours: number }): Mail {
  return linkMail({
    subject: 'Confirm your e-mail address for Signet',
    name: input.name,
    lines: [`Confirm this address to finish creating your Signet account. The link works once, for ${input.validHours} hours.`],
    button: 'Confirm my address',
    link: input.link,
    ignore: 'If you did not sign up, ignore this e-mail: no account is created without this confirmation.',
  })
}

/** Sent instead of a verification mail when someone signs up with an address that has an account: the sign-up page's answer stays the same. */
export function alreadyRegisteredMail(input: { name: string; loginLink: string; resetLink: string }): Mail {
  return linkMail({
    subject: 'You already have a Signet account',
    name: input.name,
    lines: [
      'Someone (probably you) tried to sign up with this address, which already has a Signet account. Sign in instead.',
      `Forgot your password? Choose a new one here: ${input.resetLink}`,
    ],
    button: 'Sign in',
    link: input.loginLink,
    ignore: 'If it was not you, ignore this e-mail: nothing has changed on your account.',
  })
}

export function resetPasswordMail(input: { name: string; link: string; validMinutes: number }): Mail {
  return linkMail({
    subject: 'Choose a new Signet password',
    name: input.name,
    lines: [
      `Someone asked to reset the password of your Signet account. This link works once, for ${input.validMinutes} minutes; using it signs you out everywhere.`,
    ],
    button: 'Choose a new password',
    link: input.link,
    ignore: 'If you did not ask for it, ignore this e-mail: your password stays as it is.',
  })
}

/**
 * The inviter's name and the workspace's are whatever the inviter typed: the body shows them
 * (escaped, beside the inviter's confirmed address), the subject never does, so an invitation
 * cannot be made to read as someone else's message in an inbox list.
 */
export function workspaceInvitationMail(input: {
  inviterName: string
  inviterEmail: string
  workspaceName: string
  role: string
  link: string
  validDays: number
}): Mail {
  return linkMail({
    subject: 'You are invited to a workspace on Signet',
    name: null,
    lines: [
      `${input.inviterName} (${input.inviterEmail}) invited you to join the workspace "${input.workspaceName}" on Signet as ${input.role === 'admin' ? 'an admin' : `a ${input.role}`}.`,
      `The invitation works once, for ${input.validDays} days. With no Signet account yet, you create one on the way.`,
    ],
    button: 'Accept the invitation',
    link: input.link,
    ignore: 'If you do not know this person, ignore this e-mail.',
  })
}

export function joinedWorkspaceMail(input: { name: string; workspaceName: string; loginLink: string }): Mail {
  return linkMail({
    subject: 'You have joined a workspace on Signet',
    name: input.name,
    lines: [`Your Signet account is ready and you have joined "${input.workspaceName}".`],
    button: 'Sign in',
    link: input.loginLink,
    ignore: 'If you did not sign up, tell the workspace that invited you.',
  })
}

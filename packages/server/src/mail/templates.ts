/** Plain-text and HTML bodies of the mails the service sends. User-supplied text is always escaped in HTML. */

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

const paragraphs = (text: string): string =>
  text
    .split(/\n{2,}/)
    .map((p) => `<p style="margin:0 0 16px">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('')

function layout(inner: string): string {
  return `<!doctype html><html><body style="margin:0;background:#f4f5f7;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#1f2933">
<div style="max-width:560px;margin:32px auto;background:#fff;border-radius:8px;padding:32px">${inner}
<p style="margin:24px 0 0;font-size:12px;color:#7b8794">Sent by Signet, the open-source e-signature service.</p></div></body></html>`
}

export type Mail = { subject: string; text: string; html: string }

const greetingFor = (name: string | null) => (name ? `Hello ${name},` : 'Hello,')

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
}

export function invitationMail(input: InvitationMailInput): Mail {
  // An empty custom subject means none (as an empty message does): never send a blank subject line.
  const invitationSubject = input.customSubject || `${input.orgName} sent you "${input.title}" to sign`
  const greeting = greetingFor(input.signerName)
  const newLink = 'This e-mail has a new link; the one in earlier e-mails no longer works.'
  const { subject, intro } =
    input.reason === 'reminder'
      ? {
          subject: `Reminder: ${invitationSubject}`,
          intro: `A reminder: ${input.orgName} is still waiting for you to review and sign "${input.title}". ${newLink}`,
        }
      : input.reason === 'expiring'
        ? {
            subject: `Expires soon: ${invitationSubject}`,
            intro: `"${input.title}", sent to you by ${input.orgName}, can be signed for one more day only. ${newLink}`,
          }
        : { subject: invitationSubject, intro: `${input.orgName} has asked you to review and sign "${input.title}".` }
  const expiry = input.expiresAt ? `This request expires on ${input.expiresAt.toUTCString()}.` : ''
  const text = [greeting, intro, input.customMessage ?? '', `Open the document: ${input.link}`, expiry, 'This link is personal: do not forward it.']
    .filter(Boolean)
    .join('\n\n')
  const html = layout(
    `${paragraphs(greeting)}${paragraphs(intro)}${input.customMessage ? `<blockquote style="margin:0 0 16px;padding:12px 16px;border-left:3px solid #3b82f6;background:#f0f6ff">${paragraphs(input.customMessage)}</blockquote>` : ''}
<p style="margin:24px 0"><a href="${escapeHtml(input.link)}" style="background:#1d4ed8;color:#fff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:600">Review and sign</a></p>
${expiry ? paragraphs(expiry) : ''}<p style="font-size:13px;color:#52606d">Or paste this link into your browser: ${escapeHtml(input.link)}<br>This link is personal: do not forward it.</p>`,
  )
  return { subject, text, html }
}

export function voidedMail(input: { orgName: string; title: string; signerName: string | null }): Mail {
  const subject = `"${input.title}" has been cancelled`
  const greeting = greetingFor(input.signerName)
  const body = `${input.orgName} has cancelled the signature request for "${input.title}". You no longer need to sign it, and its link no longer works.`
  return { subject, text: `${greeting}\n\n${body}`, html: layout(paragraphs(greeting) + paragraphs(body)) }
}

export function codeMail(input: { title: string; signerName: string | null; code: string; validMinutes: number }): Mail {
  // Never the code itself: subjects show in notifications, mail lists and logs that bodies never reach.
  const subject = `Here is your code to open "${input.title}"`
  const body = `Enter this code on the signing page to open "${input.title}". It works once, for ${input.validMinutes} minutes.`
  const ignore = 'If you did not ask for it, you can ignore this e-mail: nobody can open the document without the code.'
  return {
    subject,
    text: [greetingFor(input.signerName), body, input.code, ignore].join('\n\n'),
    html: layout(
      `${paragraphs(greetingFor(input.signerName))}${paragraphs(body)}<p style="margin:24px 0;font-size:32px;letter-spacing:8px;font-weight:700;font-family:Menlo,Consolas,monospace">${escapeHtml(input.code)}</p>${paragraphs(ignore)}`,
    ),
  }
}

export function completedMail(input: { orgName: string; title: string; signerName: string | null; signerCount: number; copy?: boolean }): Mail {
  const subject = `"${input.title}" is complete`
  const body = input.copy
    ? `${input.signerCount === 1 ? 'The signer has' : `All ${input.signerCount} parties have`} signed "${input.title}", sent by ${input.orgName}, who asked for you to receive a copy. The signed PDF, with its signing certificate, is attached.`
    : `${input.signerCount === 1 ? 'You have signed' : `All ${input.signerCount} parties have signed`} "${input.title}", sent by ${input.orgName}. The signed PDF, with its signing certificate, is attached. Keep it for your records.`
  return { subject, text: `${greetingFor(input.signerName)}\n\n${body}`, html: layout(paragraphs(greetingFor(input.signerName)) + paragraphs(body)) }
}

export function declinedMail(input: { orgName: string; title: string; signerName: string | null; declinedBy: string }): Mail {
  const subject = `"${input.title}" was declined`
  const body = `${input.declinedBy} declined to sign "${input.title}", sent by ${input.orgName}. The signature request is closed: you no longer need to sign it, and its link no longer works.`
  return { subject, text: `${greetingFor(input.signerName)}\n\n${body}`, html: layout(paragraphs(greetingFor(input.signerName)) + paragraphs(body)) }
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

import nodemailer from 'nodemailer'
import type { Logger } from '../lib/logger.ts'

export interface MailAttachment {
  filename: string
  content: Uint8Array
  contentType: string
}

export interface MailMessage {
  to: string
  subject: string
  text: string
  html: string
  attachments?: MailAttachment[]
  /** The Message-ID header, the same on every attempt: a message sent again after a crash is the same message to the receiver. */
  messageId?: string
}

/** Delivers one message or throws; the outbox (mail/outbox.ts) handles retries. */
export interface Mailer {
  /** Recorded on each delivered message: 'smtp' or 'log'. */
  readonly transport: 'smtp' | 'log'
  send(message: MailMessage): Promise<void>
  close(): void
}

export function smtpMailer(smtpUrl: string, from: string): Mailer {
  const transporter = nodemailer.createTransport(smtpUrl)
  return {
    transport: 'smtp',
    async send(message) {
      const attachments = message.attachments?.map((a) => ({ ...a, content: Buffer.from(a.content) }))
      await transporter.sendMail({ from, ...message, attachments })
    },
    close: () => transporter.close(),
  }
}

/**
 * With no SMTP_URL the message stays in the database outbox (readable with
 * `npm run -s admin -- mail list`) and is logged, so an offline instance still works.
 */
export function logMailer(logger: Logger): Mailer {
  return {
    transport: 'log',
    send(message) {
      // The body is not logged: it carries the signer's secret link.
      logger.info({ to: message.to, subject: message.subject }, 'mail kept in the local outbox (no SMTP_URL); read it with `npm run -s admin -- mail list`')
      return Promise.resolve()
    },
    close: () => undefined,
  }
}

import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import { rgbaPng } from './png.ts'
import { bodyOf, postDocument, uniqueEmail, type TestOrg } from './api.ts'
import type { TestServer } from './test-server.ts'

/** The signing-link token in an invitation e-mail. */
export function tokenFromMail(text: string | undefined): string {
  const match = /\/sign\/([A-Za-z0-9_-]{43})/.exec(text ?? '')
  if (!match?.[1]) throw new Error(`no signing link in: ${text}`)
  return match[1]
}

/** A real RGBA PNG: a dark diagonal stroke on transparency, or random noise (incompressible, for size limits). */
export function makePng(width: number, height: number, kind: 'stroke' | 'noise' = 'stroke'): Buffer {
  const rows: Buffer[] = []
  for (let y = 0; y < height; y++) {
    const row = kind === 'noise' ? randomBytes(width * 4) : Buffer.alloc(width * 4)
    if (kind === 'stroke') {
      for (let x = 0; x < width; x++) {
        if (Math.abs(x * (height / width) - y) < 3) row.set([20, 30, 90, 255], x * 4)
      }
    }
    rows.push(Buffer.concat([Buffer.from([0]), row]))
  }
  return rgbaPng(width, height, Buffer.concat(rows))
}

export const pngDataUrl = (png: Buffer = makePng(300, 80)): string => `data:image/png;base64,${png.toString('base64')}`

/** A signer's browser: its link token and cookie jar, calling the signing page's JSON endpoints. */
export class SignerClient {
  private cookie: string | undefined
  constructor(
    private readonly server: TestServer,
    readonly token: string,
    readonly email: string,
  ) {}

  async call(path: string, init: { method?: string; json?: unknown } = {}): Promise<Response> {
    const response = await this.server.request(`/sign/${this.token}${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      ...(init.json !== undefined ? { json: init.json } : {}),
      headers: { 'user-agent': 'SignetTest/1.0', ...(this.cookie ? { cookie: this.cookie } : {}) },
    })
    const setCookie = response.headers.get('set-cookie')
    if (setCookie) this.cookie = setCookie.split(';')[0]
    return response
  }

  page = () => this.call('')
  view = () => this.call('/view', { json: {} })
  /** `locale` as the signer page sends navigator.language: date fields are printed in it. */
  finish = (values: Record<string, string | boolean>, locale?: string) => this.call('/finish', { json: { values, ...(locale ? { locale } : {}) } })
  decline = (reason?: string) => this.call('/decline', { json: reason === undefined ? {} : { reason } })
  sendCode = () => this.call('/code', { json: {} })
  verify = (code: string) => this.call('/code/verify', { json: { code } })

  /** The latest code e-mailed to this signer (waits for the `nth` code mail). */
  async latestCode(nth = 1): Promise<string> {
    const mails = (await this.server.mail.waitFor(this.email, 1 + nth)).filter((m) => /is your code/.test(m.subject ?? ''))
    const code = /\b(\d{6})\b/.exec(mails[nth - 1]?.text ?? '')?.[1]
    if (!code) throw new Error('no code mail')
    return code
  }
}

/** Fields of a template where each role has a signature, and role 0 also a text, a date and a checkbox. */
export const richFields = (roles: number[]) =>
  roles.flatMap((role, i) => [
    { role, type: 'signature', page: 1, x: 72, y: 140 + i * 120, width: 200, height: 40, label: `Signature ${role}` },
    ...(i === 0
      ? [
          { role, type: 'text', page: 1, x: 300, y: 140, width: 200, height: 20, label: 'Job title' },
          { role, type: 'date', page: 1, x: 300, y: 170, width: 120, height: 20 },
          { role, type: 'checkbox', page: 1, x: 300, y: 200, width: 14, height: 14, required: false, label: 'Send me a copy' },
        ]
      : []),
  ])

export interface SigningDocument {
  documentId: string
  signers: SignerClient[]
}

/** A document sent through the API to one signer per role; each signer's client is built from their real invitation e-mail. */
export async function sendForSigning(
  server: TestServer,
  org: TestOrg,
  options: { roles?: number[]; templateId?: string; authRequired?: boolean[]; names?: string[]; expiresAt?: string } = {},
): Promise<SigningDocument> {
  const roles = options.roles ?? [0]
  const templateId = options.templateId ?? (await server.createTemplate(org.orgId, { fields: richFields(roles) })).id
  const emails = roles.map(() => uniqueEmail())
  const response = await postDocument(server, org.apiKey, {
    template_id: templateId,
    signers: roles.map((role, i) => ({
      role,
      email: emails[i],
      name: options.names?.[i] ?? `Signer ${i + 1}`,
      auth_required: options.authRequired?.[i] ?? false,
    })),
    ...(options.expiresAt ? { expires_at: options.expiresAt } : {}),
  })
  expect(response.status).toBe(201)
  const { id } = await bodyOf<{ id: string }>(response)
  const signers = await Promise.all(
    emails.map(async (email) => {
      const [invitation] = await server.mail.waitFor(email)
      return new SignerClient(server, tokenFromMail(invitation?.text), email)
    }),
  )
  return { documentId: id, signers }
}

/** The values that fill every field of `richFields` for the signer at `index`. */
export const valuesFor = (index: number): Record<string, string | boolean> =>
  index === 0 ? { '0': pngDataUrl(), '1': 'Head of Legal', '3': true } : { [String(3 + index)]: pngDataUrl() }

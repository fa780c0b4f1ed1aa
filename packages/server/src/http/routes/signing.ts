import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { readSignedPdf } from '../../documents/document-files.ts'
import { AppError } from '../../errors.ts'
import type { Services } from '../../services.ts'
import { codeRequired, hasSigningAccess, SESSION_HOURS, sendSigningCode, verifySigningCode } from '../../signing/email-code.ts'
import type { RequestMeta } from '../../signing/locked-state.ts'
import { invalidLink, loadSignerContext, type SignerContext } from '../../signing/signer-context.ts'
import { assertOpen } from '../../signing/signing-rules.ts'
import { declineSigning, finishSigning, markViewed } from '../../signing/transitions.ts'
import { renderSigningView } from '../../signing/signing-view.ts'
import { statusPage } from '../../signing/web/pages.ts'
import { pageSecurityHeaders } from '../security-headers.ts'
import { sendFile } from '../send-file.ts'
import { DeclineBody, EmptyBody, FinishBody, TokenParams, VerifyBody } from '../../signing/signing.schemas.ts'

const SESSION_COOKIE = 'signet_signing'

/** Signature images are data: URLs of at most 256 KiB (≈ 350 KB in base64), checked with a clear message by the domain; 20 such fields fit. */
const FINISH_BODY_LIMIT = 8 * 1024 * 1024

/*
 * Pages carry a secret in their URL (the signing token), so they are never cached,
 * never leak it in a Referer, never framed, and run only our own script.
 */
const PAGE_HEADERS = {
  ...pageSecurityHeaders({
    'script-src': "'self'",
    'style-src': "'self'",
    'img-src': "'self' data: blob:",
    'font-src': "'self'",
    'connect-src': "'self'",
    'worker-src': "'self' blob:",
    'form-action': "'self'",
  }),
  'cache-control': 'no-store',
}

const metaOf = (request: FastifyRequest): RequestMeta => ({ ip: request.ip, userAgent: request.headers['user-agent']?.slice(0, 500) ?? null })

/** The signer's pages and the JSON calls their script makes, all keyed by the link's token. */
export const signingRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const sessionOf = (request: FastifyRequest) => request.cookies[SESSION_COOKIE]

  /** Loads the link's signer and checks this browser may see the document (the e-mail code, when required). */
  const authorised = async (request: FastifyRequest, token: string): Promise<SignerContext> => {
    const context = await loadSignerContext(services.db, token)
    if (!(await hasSigningAccess(services, context, sessionOf(request)))) throw codeRequired()
    return context
  }

  const sendPage = (reply: FastifyReply, status: number, html: string) => reply.status(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(html)

  const linkDoesNotWork = (reply: FastifyReply, error: AppError) =>
    sendPage(reply, error.status, statusPage({ heading: 'This link does not work', message: error.message, tone: 'error' }))

  // A token that fails validation (too long, control characters) is one more link that does not work: the signer gets the page, not JSON.
  app.get('/sign/:token', { attachValidation: true, schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    if (request.validationError) return linkDoesNotWork(reply, invalidLink())
    let context: SignerContext
    try {
      context = await loadSignerContext(services.db, request.params.token)
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      return linkDoesNotWork(reply, error)
    }
    const hasAccess = await hasSigningAccess(services, context, sessionOf(request))
    return sendPage(reply, 200, await renderSigningView(services, context, { token: request.params.token, hasAccess }))
  })

  // The router refuses path segments over 100 characters before any route sees them; this catches those links (and other paths under /sign/).
  app.get('/sign/*', { schema: { hide: true } }, (_request, reply) => linkDoesNotWork(reply, invalidLink()))

  const sign = { schema: { hide: true, params: TokenParams } }

  app.get('/sign/:token/document.pdf', sign, async (request, reply) => {
    const context = await authorised(request, request.params.token)
    assertOpen(context, services.clock.now())
    const bytes = await services.blobs.get(context.template.pdfSha256)
    if (!bytes) throw new Error(`template PDF ${context.template.pdfSha256} is missing`)
    return reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).type('application/pdf').send(Buffer.from(bytes))
  })

  app.get('/sign/:token/signed.pdf', sign, async (request, reply) => {
    const context = await authorised(request, request.params.token)
    reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' })
    return sendFile(reply, await readSignedPdf(services.blobs, context.document))
  })

  app.post('/sign/:token/view', { schema: { ...sign.schema, body: EmptyBody } }, async (request) => {
    await markViewed(services, await authorised(request, request.params.token), metaOf(request))
    return { ok: true }
  })

  app.post('/sign/:token/finish', { bodyLimit: FINISH_BODY_LIMIT, schema: { ...sign.schema, body: FinishBody } }, async (request) =>
    finishSigning(services, await authorised(request, request.params.token), request.body.values, metaOf(request)),
  )

  app.post('/sign/:token/decline', { schema: { ...sign.schema, body: DeclineBody } }, async (request) =>
    declineSigning(services, await authorised(request, request.params.token), request.body?.reason, metaOf(request)),
  )

  app.post('/sign/:token/code', { schema: { ...sign.schema, body: EmptyBody } }, async (request) =>
    sendSigningCode(services, await loadSignerContext(services.db, request.params.token), metaOf(request)),
  )

  app.post('/sign/:token/code/verify', { schema: { ...sign.schema, body: VerifyBody } }, async (request, reply) => {
    const context = await loadSignerContext(services.db, request.params.token)
    const session = await verifySigningCode(services, context, request.body.code, metaOf(request))
    reply.setCookie(SESSION_COOKIE, session.sessionSecret, {
      path: `/sign/${request.params.token}`,
      httpOnly: true,
      sameSite: 'strict',
      secure: services.config.publicUrl.startsWith('https:'),
      maxAge: SESSION_HOURS * 3600,
    })
    return { verified: true }
  })
}

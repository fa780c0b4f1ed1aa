import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { readSignedPdf } from '../../documents/document-files.ts'
import { AppError } from '../../errors.ts'
import type { Services } from '../../services.ts'
import { codeRequired, hasSigningAccess, SESSION_HOURS, sendSigningCode, verifySigningCode } from '../../signing/email-code.ts'
import type { RequestMeta } from '../../signing/locked-state.ts'
import { MAX_IMAGE_BYTES, maxSubmissionBytes } from '../../signing/field-values.ts'
import { fieldsOf, invalidLink, loadSignerContext, type SignerContext } from '../../signing/signer-context.ts'
import { assertOpen } from '../../signing/signing-rules.ts'
import { embeddedPageFrameAncestors, invalidEmbeddedLink, isEmbeddedPageToken, loadEmbeddedPage, openEmbedUrl } from '../../signing/embed/embed-links.ts'
import { declineSigning, finishSigning, markViewed } from '../../signing/transitions.ts'
import { renderSigningView } from '../../signing/signing-view.ts'
import { statusPage } from '../../signing/web/pages.ts'
import { translator } from '../../signing/i18n/catalog.ts'
import { forSigner, inSignerLanguage, signerTextIn } from '../../signing/i18n/error-texts.ts'
import { pageLanguage, signerLanguageOf, type SignerLanguage } from '../../signing/i18n/languages.ts'
import { pageSecurityHeaders } from '../security-headers.ts'
import { sendFile } from '../send-file.ts'
import { DeclineBody, EmptyBody, FinishBody, TokenParams, VerifyBody } from '../../signing/signing.schemas.ts'

const SESSION_COOKIE = 'signet_signing'
/** The language the signer picked in a page's menu, for every signing link in this browser (a year). */
const LANGUAGE_COOKIE = 'signet_language'
const LANGUAGE_COOKIE_SECONDS = 365 * 24 * 3600

/**
 * The POST bodies of the signer's links are small (a decline reason, a code), except finish's:
 * that one may take what the signer's own fields can need (maxSubmissionBytes: each signature
 * image up to 256 KiB, ≈ 350 KB in base64), up to FINISH_BODY_LIMIT whatever the template.
 * Each link is resolved before any body byte is read, so an unknown one costs one lookup.
 */
const SIGNING_BODY_LIMIT = 16 * 1024
const SIGNING_BODY_LIMIT_WORDS = "16 KiB: a signer's requests other than finishing carry a few short fields"
/** 23 signature images of the largest size. */
const FINISH_BODY_LIMIT = 8 * 1024 * 1024

/*
 * Pages carry a secret in their URL (the signing token), so they are never cached,
 * never leak it in a Referer, never framed (but an embedded page, by its workspace's
 * embed origins: signing/embed), and run only our own script.
 */
const PAGE_ALLOWANCES = {
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data: blob:",
  'font-src': "'self'",
  'connect-src': "'self'",
  'worker-src': "'self' blob:",
  'form-action': "'self'",
}
const PAGE_HEADERS = { ...pageSecurityHeaders(PAGE_ALLOWANCES), 'cache-control': 'no-store' }
/** An embedded page (signing/embed) may be framed by its workspace's embed origins, and by nothing else. */
const pageHeadersFor = (frameAncestors: readonly string[]) =>
  frameAncestors.length === 0 ? PAGE_HEADERS : { ...pageSecurityHeaders(PAGE_ALLOWANCES, frameAncestors), 'cache-control': 'no-store' }

const metaOf = (request: FastifyRequest): RequestMeta => ({ ip: request.ip, userAgent: request.headers['user-agent']?.slice(0, 500) ?? null })

/** The signer's pages and the JSON calls their script makes, all keyed by the link's token. */
export const signingRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const sessionOf = (request: FastifyRequest) => request.cookies[SESSION_COOKIE]

  /** The page menu's ?lang= (one of ours), remembered in a cookie for the next page (when there is a `reply` to set it on). */
  const chosenLanguage = (request: FastifyRequest, reply?: FastifyReply): SignerLanguage | null => {
    const picked = signerLanguageOf((request.query as { lang?: unknown } | undefined)?.lang?.toString())
    if (picked && reply) {
      reply.setCookie(LANGUAGE_COOKIE, picked, {
        path: '/sign',
        httpOnly: true,
        sameSite: 'lax',
        secure: services.config.publicUrl.startsWith('https:'),
        maxAge: LANGUAGE_COOKIE_SECONDS,
      })
    }
    return picked ?? signerLanguageOf(request.cookies[LANGUAGE_COOKIE])
  }
  /**
   * The signer's language: their pick, the document's, their browser's, the workspace's, English (signing/i18n/languages.ts).
   * Pages pass their `reply`, to remember a pick made with ?lang=; the JSON calls' errors come without (their page was in it).
   */
  const languageOf = (request: FastifyRequest, reply: FastifyReply | undefined, context?: SignerContext): SignerLanguage =>
    pageLanguage({
      chosen: chosenLanguage(request, reply),
      documentLanguage: context?.document.language ?? null,
      acceptLanguage: request.headers['accept-language'],
      workspaceLanguage: context?.workspaceLanguage ?? null,
    })

  /** The link of a request once loaded: a POST's by its onRequest hook (before the body is read: an unknown link is 404 at once). */
  const resolved = new WeakMap<FastifyRequest, SignerContext>()

  /** The signer of an e-mailed link's token, or of an embedded page's capability (signing/embed). */
  const loadContext = (token: string): Promise<SignerContext> =>
    isEmbeddedPageToken(token) ? loadEmbeddedPage(services, token) : loadSignerContext(services.db, token)

  /** Loads the link's signer and checks this browser may see the document (the e-mail code, when required). */
  const authorised = async (request: FastifyRequest, token: string): Promise<SignerContext> => {
    const context = await loadContext(token)
    resolved.set(request, context) // known before the check, for the language of its error
    if (!(await hasSigningAccess(services, context, sessionOf(request)))) throw codeRequired()
    return context
  }

  /*
   * What the signer's script shows from an error it gets (a wrong code, a closed document, a field
   * the server refuses) is in the language its page was in, chosen the same way; the code, the
   * field and any other part of the body stay as raised. The app's error handler writes the answer.
   */
  app.setErrorHandler((error, request) => {
    throw inSignerLanguage(error, translator(languageOf(request, undefined, resolved.get(request))))
  })
  const linkOf = (request: FastifyRequest): SignerContext => {
    const context = resolved.get(request)
    if (!context) throw new Error('the signing link was not resolved before the handler')
    return context
  }
  /** onRequest: the link's signer (`link`), or that and this browser's access to the document (`access`). */
  const resolveLink = (check: 'link' | 'access') => async (request: FastifyRequest) => {
    const { token } = request.params as { token: string }
    resolved.set(request, check === 'access' ? await authorised(request, token) : await loadContext(token))
  }
  const post = (check: 'link' | 'access') => ({
    onRequest: resolveLink(check),
    bodyLimit: SIGNING_BODY_LIMIT,
    config: { bodyLimitSetting: SIGNING_BODY_LIMIT_WORDS },
  })

  /** Finishing may carry this signer's images: a declared length beyond what their fields can need is refused before reading. */
  const refuseOversizedFinish = async (request: FastifyRequest) => {
    const limit = Math.min(FINISH_BODY_LIMIT, maxSubmissionBytes(fieldsOf(linkOf(request))))
    if (Number(request.headers['content-length'] ?? 0) > limit) {
      const error = new AppError(
        'payload_too_large',
        `The request body is larger than ${limit} bytes, the most your fields can need (a signature image is at most ${MAX_IMAGE_BYTES / 1024} KiB).`,
      )
      throw forSigner(error, 'error.requestTooLarge', { limit, imageLimit: MAX_IMAGE_BYTES / 1024 })
    }
  }

  const sendPage = (reply: FastifyReply, status: number, html: string, frameAncestors: readonly string[] = []) =>
    reply.status(status).headers(pageHeadersFor(frameAncestors)).type('text/html; charset=utf-8').send(html)

  /**
   * A link that leads nowhere: the page in the browser's language (no document to ask); the reason is always a bad or unknown link.
   * A used or expired embed URL shows it inside the integrator's frame (`frameAncestors`: its workspace's embed origins).
   * An embed URL or embedded page was opened from the integrator's app, not an e-mail: its words send the signer back there.
   */
  const linkDoesNotWork = (request: FastifyRequest, reply: FastifyReply, error: AppError, frameAncestors: readonly string[] = []) => {
    const t = translator(languageOf(request, reply))
    const message = error.translatable ? signerTextIn(t, error.translatable) : error.code === 'not_found' ? t.text('status.invalidLink.message') : error.message
    return sendPage(reply, error.status, statusPage({ t, heading: t.text('status.invalidLink.heading'), message, tone: 'error' }), frameAncestors)
  }
  /** The refusal of a path under /sign/: an embed URL's or an embedded page's capability (em_…) gets the embedded words. */
  const refusalOf = (path: string) => (path.startsWith('embed/') || isEmbeddedPageToken(path.split('/')[0] ?? '') ? invalidEmbeddedLink() : invalidLink())

  // A token that fails validation (too long, control characters) is one more link that does not work: the signer gets the page, not JSON.
  app.get('/sign/:token', { attachValidation: true, schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    if (request.validationError) return linkDoesNotWork(request, reply, refusalOf(String(request.params.token)))
    const { token } = request.params
    let context: SignerContext
    try {
      context = await loadContext(token)
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      // An embedded page past its hours says so inside the integrator's frame.
      const frameAncestors = isEmbeddedPageToken(token) ? await embeddedPageFrameAncestors(services.db, token) : []
      return linkDoesNotWork(request, reply, error, frameAncestors)
    }
    const hasAccess = await hasSigningAccess(services, context, sessionOf(request))
    const language = languageOf(request, reply, context)
    const page = await renderSigningView(services, context, { token: request.params.token, hasAccess, language })
    return sendPage(reply, 200, page, context.embedded?.frameAncestors)
  })

  /*
   * An embed URL (signing/embed): its first use, within its five minutes, opens the signer's page
   * at its own capability (a redirect the frame follows); any other use is a link that does not work.
   */
  app.get('/sign/embed/:token', { attachValidation: true, schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    if (request.validationError) return linkDoesNotWork(request, reply, invalidEmbeddedLink())
    const opening = await openEmbedUrl(services, request.params.token, metaOf(request))
    if (!opening.opened) return linkDoesNotWork(request, reply, invalidEmbeddedLink(), opening.frameAncestors)
    return reply.headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).redirect(`/sign/${opening.pageToken}`, 303)
  })

  // The router refuses path segments over 100 characters before any route sees them; this catches those links (and other paths under /sign/).
  app.get('/sign/*', { schema: { hide: true } }, (request, reply) => linkDoesNotWork(request, reply, refusalOf((request.params as { '*': string })['*'])))

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

  app.post('/sign/:token/view', { ...post('access'), schema: { ...sign.schema, body: EmptyBody } }, async (request) => {
    await markViewed(services, linkOf(request), metaOf(request))
    return { ok: true }
  })

  app.post(
    '/sign/:token/finish',
    { onRequest: [resolveLink('access'), refuseOversizedFinish], bodyLimit: FINISH_BODY_LIMIT, schema: { ...sign.schema, body: FinishBody } },
    async (request) => finishSigning(services, linkOf(request), request.body, metaOf(request)),
  )

  app.post('/sign/:token/decline', { ...post('access'), schema: { ...sign.schema, body: DeclineBody } }, async (request) =>
    declineSigning(services, linkOf(request), request.body?.reason, metaOf(request)),
  )

  // The code e-mail is asked for from the page: it is written in the page's language.
  app.post('/sign/:token/code', { ...post('link'), schema: { ...sign.schema, body: EmptyBody } }, async (request, reply) => {
    const context = linkOf(request)
    return sendSigningCode(services, context, metaOf(request), languageOf(request, reply, context))
  })

  app.post('/sign/:token/code/verify', { ...post('link'), schema: { ...sign.schema, body: VerifyBody } }, async (request, reply) => {
    const context = linkOf(request)
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

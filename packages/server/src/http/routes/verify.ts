import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { publicVerification } from '../../seal/public-verification.ts'
import { verifyScript, verifyStyle } from '../../seal/web/verify-bundle.ts'
import { verifyNotFoundPage, verifyPage, type VerifyPageAssets } from '../../seal/web/verify-page.ts'
import { notFound } from '../../errors.ts'
import type { Services } from '../../services.ts'
import { ErrorBody } from '../schemas.ts'
import { pageSecurityHeaders } from '../security-headers.ts'
import { sendAsset } from '../send-asset.ts'

export const ROOT_PEM_PATH = '/.well-known/signet-root.pem'

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) }, { additionalProperties: false })

const PAGE_HEADERS = {
  ...pageSecurityHeaders({ 'script-src': "'self'", 'style-src': "'self'", 'img-src': "'self' data:", 'connect-src': "'self'" }),
  'cache-control': 'no-cache',
}

const Verification = Type.Object(
  {
    document_id: Type.String(),
    kind: Type.Union([Type.Literal('self-sealed'), Type.Literal('signed')]),
    title: Type.String(),
    sealed_by: Type.String(),
    identity_verified_at: Type.Union([Type.String(), Type.Null()]),
    signer_count: Type.Union([Type.Integer(), Type.Null()]),
    completed_at: Type.Union([Type.String(), Type.Null()]),
    certificate_mode: Type.Union([Type.String(), Type.Null()]),
    sealed_file_sha256: Type.String(),
    original_sha256: Type.Union([Type.String(), Type.Null()]),
    sealed_at: Type.String(),
    timestamp_authority: Type.String(),
    built_in_timestamp_authority: Type.Boolean(),
    audit_head_hash: Type.String(),
  },
  { additionalProperties: false },
)

async function pageAssets(): Promise<VerifyPageAssets> {
  const [script, style] = await Promise.all([verifyScript(), verifyStyle()])
  return { scriptUrl: `/verify-assets/verify.js?v=${script.version}`, styleUrl: `/verify-assets/verify.css?v=${style.version}`, rootPemUrl: ROOT_PEM_PATH }
}

/** Public, without login: the instance's root certificate and each sealed document's verification page. */
export const verifyRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { db, config, sealer } = services

  app.get(
    ROOT_PEM_PATH,
    {
      schema: {
        tags: ['Verification'],
        operationId: 'getRootCertificates',
        summary: "The root certificate(s) to trust this instance's seals with (PEM)",
        security: [],
      },
    },
    (_request, reply) =>
      reply
        .header('content-type', 'application/x-pem-file')
        .header('cache-control', 'public, max-age=3600')
        .header('access-control-allow-origin', '*')
        .send(sealer.publishedRootsPem),
  )

  app.get(
    '/verify/:id.json',
    {
      schema: {
        tags: ['Verification'],
        operationId: 'getPublicVerification',
        summary: 'What the public verification page shows, as JSON',
        security: [],
        params: IdParams,
        response: { 200: Verification, 404: { ...ErrorBody, description: 'No sealed document with this id' } },
      },
    },
    async (request, reply) => {
      const facts = await publicVerification(db, config, request.params.id)
      if (!facts) throw notFound('No sealed document with this id.')
      return reply.header('access-control-allow-origin', '*').send(facts)
    },
  )

  app.get('/verify/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const [facts, assets] = await Promise.all([publicVerification(db, config, request.params.id), pageAssets()])
    void reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8')
    return facts ? reply.send(verifyPage(facts, assets)) : reply.status(404).send(verifyNotFoundPage(assets))
  })

  app.get('/verify-assets/verify.js', { schema: { hide: true } }, async (request, reply) => sendAsset(request, reply, await verifyScript()))
  app.get('/verify-assets/verify.css', { schema: { hide: true } }, async (request, reply) => sendAsset(request, reply, await verifyStyle()))
}

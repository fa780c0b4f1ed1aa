import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { createDocument } from '../../documents/create-document.ts'
import { getBadgeImage, getCertificateFile, getSignedFile, type FileDownload } from '../../documents/document-files.ts'
import { getDocument } from '../../documents/get-document.ts'
import { countDocuments, expiresBeforeOf, listDocuments } from '../../documents/list-documents.ts'
import { voidDocument } from '../../documents/void-document.ts'
import { getDocumentAudit } from '../../documents/document-audit.ts'
import { resendInvitation } from '../../documents/resend-invitation.ts'
import type { Services } from '../../services.ts'
import { actorOf, principalOf } from '../auth.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { sendFile } from '../send-file.ts'
import { invalid } from '../../errors.ts'
import { idempotencyConflict, IdempotencyKeyHeaders, idempotentRoute } from '../idempotency.ts'
import { DocumentIdParams, ErrorBody, PaymentRequiredBody, withCommonErrors } from '../schemas.ts'
import {
  CreateDocumentBody,
  DocumentAudit,
  DocumentCounts,
  DocumentCountsQuery,
  DocumentList,
  DocumentView,
  ListDocumentsQuery,
  MultiPartyCreated,
  ResendAccepted,
  SignerParams,
  SingleSignerCreated,
  VoidResult,
} from '../../documents/documents.schemas.ts'

const tags = ['Documents']
const noDocument = { ...ErrorBody, description: 'No such document in this org' }

const binary = (contentType: FileDownload['contentType'], description: string) => ({
  description,
  content: { [contentType]: { schema: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' }) } },
})

/** A JSON schema cannot say "no body" (an absent body is not a JSON value), so the route checks it. */
function rejectAnyBody(body: unknown): void {
  const empty = body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0)
  if (!empty) throw invalid('This endpoint takes no request body.')
}

export const documentRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { db } = services

  app.post(
    '/documents',
    {
      onRequest: rateLimit(services, RATE_LIMITS.create),
      ...idempotentRoute(services),
      schema: {
        tags,
        operationId: 'createDocument',
        summary: 'Create a document from a template and send it',
        headers: IdempotencyKeyHeaders,
        body: CreateDocumentBody,
        response: withCommonErrors({
          201: Type.Union([SingleSignerCreated, MultiPartyCreated]),
          400: { ...ErrorBody, description: 'Invalid body, unknown template, or a role without a signer' },
          402: { ...PaymentRequiredBody, description: 'Plan allowance exhausted' },
          409: idempotencyConflict(),
        }),
      },
    },
    async (request, reply) => reply.status(201).send(await createDocument(services, actorOf(request), request.body)),
  )

  app.get(
    '/documents',
    {
      onRequest: rateLimit(services, RATE_LIMITS.listDocuments),
      schema: {
        tags,
        operationId: 'listDocuments',
        summary: 'List documents, newest first',
        querystring: ListDocumentsQuery,
        response: withCommonErrors({ 200: DocumentList, 400: { ...ErrorBody, description: 'Invalid query parameter' } }),
      },
    },
    async (request) => {
      const { status, search, include_self_sealed = false, expires_before, limit = 20, offset = 0 } = request.query
      const filter = { status, search, includeSelfSealed: include_self_sealed, expiresBefore: expiresBeforeOf(expires_before), limit, offset }
      return listDocuments(db, principalOf(request), filter)
    },
  )

  app.get(
    '/documents/counts',
    {
      onRequest: rateLimit(services, RATE_LIMITS.listDocuments),
      schema: {
        tags,
        operationId: 'countDocuments',
        summary: "Count documents per status (extension): the list's tabs in one request",
        querystring: DocumentCountsQuery,
        response: withCommonErrors({ 200: DocumentCounts, 400: { ...ErrorBody, description: 'Invalid query parameter' } }),
      },
    },
    async (request) => {
      const { search, include_self_sealed = false } = request.query
      return countDocuments(db, principalOf(request), { search, includeSelfSealed: include_self_sealed })
    },
  )

  app.get(
    '/documents/:id',
    {
      onRequest: rateLimit(services, RATE_LIMITS.readDocument),
      schema: {
        tags,
        operationId: 'getDocument',
        summary: 'Read a document and its signers',
        params: DocumentIdParams,
        response: withCommonErrors({ 200: DocumentView, 404: noDocument }),
      },
    },
    async (request) => getDocument(db, principalOf(request), request.params.id),
  )

  app.post(
    '/documents/:id/void',
    {
      onRequest: rateLimit(services, RATE_LIMITS.void),
      schema: {
        tags,
        operationId: 'voidDocument',
        summary: 'Void a document that is out for signature',
        params: DocumentIdParams,
        response: withCommonErrors({
          200: VoidResult,
          400: { ...ErrorBody, description: 'Only documents out for signature can be voided' },
          404: noDocument,
        }),
      },
    },
    async (request) => {
      rejectAnyBody(request.body)
      return voidDocument(services, actorOf(request), request.params.id)
    },
  )

  app.get(
    '/documents/:id/audit',
    {
      onRequest: rateLimit(services, RATE_LIMITS.audit),
      schema: {
        tags,
        operationId: 'getDocumentAudit',
        summary: "A document's audit trail, oldest first, with its hash chain checked",
        params: DocumentIdParams,
        response: withCommonErrors({ 200: DocumentAudit, 404: noDocument }),
      },
    },
    async (request) => getDocumentAudit(db, principalOf(request), request.params.id),
  )

  app.post(
    '/documents/:id/signers/:signerId/resend',
    {
      onRequest: rateLimit(services, RATE_LIMITS.resend),
      schema: {
        tags,
        operationId: 'resendInvitation',
        summary: 'Mail a signer who has not signed a new invitation (a new link: the earlier one stops working)',
        params: SignerParams,
        response: withCommonErrors({
          202: ResendAccepted,
          400: { ...ErrorBody, description: 'A request body was sent' },
          404: { ...ErrorBody, description: 'No such document in this org, or no such signer on it' },
          409: { ...ErrorBody, description: 'The document is not out for signature, or the signer has already signed or declined' },
          429: { ...ErrorBody, description: "The org's hourly limit, or this signer was re-sent an invitation less than a minute ago (Retry-After)" },
        }),
      },
    },
    async (request, reply) => {
      rejectAnyBody(request.body)
      const { id, signerId } = request.params
      return reply.status(202).send(await resendInvitation(services, actorOf(request), id, signerId))
    },
  )

  const downloads = [
    {
      path: 'signed-file',
      operationId: 'downloadSignedPdf',
      summary: 'Download the flattened signed PDF',
      get: getSignedFile,
      type: 'application/pdf' as const,
      limit: RATE_LIMITS.signedFile,
    },
    {
      path: 'certificate',
      operationId: 'downloadCertificate',
      summary: 'Download the standalone seal certificate PDF',
      get: getCertificateFile,
      type: 'application/pdf' as const,
      limit: RATE_LIMITS.certificate,
    },
    {
      path: 'badge',
      operationId: 'downloadBadge',
      summary: 'Download the Verified Badge PNG',
      get: getBadgeImage,
      type: 'image/png' as const,
      limit: RATE_LIMITS.badge,
    },
  ]
  for (const download of downloads) {
    app.get(
      `/documents/:id/${download.path}`,
      {
        onRequest: rateLimit(services, download.limit),
        schema: {
          tags,
          operationId: download.operationId,
          summary: download.summary,
          params: DocumentIdParams,
          response: withCommonErrors({ 200: binary(download.type, download.summary), 404: { ...ErrorBody, description: 'Not available' } }),
        },
      },
      async (request, reply) => {
        const file = await download.get(services, principalOf(request), request.params.id)
        return sendFile(reply, file)
      },
    )
  }
}

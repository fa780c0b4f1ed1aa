import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { createDocument } from '../../documents/create-document.ts'
import { getBadgeImage, getCertificateFile, getSignedFile, type FileDownload } from '../../documents/document-files.ts'
import { getDocument } from '../../documents/get-document.ts'
import { listDocuments } from '../../documents/list-documents.ts'
import { voidDocument } from '../../documents/void-document.ts'
import type { Services } from '../../services.ts'
import { actorOf, principalOf } from '../auth.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { sendFile } from '../send-file.ts'
import { invalid } from '../../errors.ts'
import { DocumentIdParams, ErrorBody, PaymentRequiredBody, withCommonErrors } from '../schemas.ts'
import {
  CreateDocumentBody,
  DocumentList,
  DocumentView,
  ListDocumentsQuery,
  MultiPartyCreated,
  SingleSignerCreated,
  VoidResult,
} from '../../documents/documents.schemas.ts'

const tags = ['Documents']

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
      schema: {
        tags,
        summary: 'Create a document from a template and send it',
        body: CreateDocumentBody,
        response: withCommonErrors({
          201: Type.Union([SingleSignerCreated, MultiPartyCreated]),
          400: { ...ErrorBody, description: 'Invalid body, unknown template, or a role without a signer' },
          402: { ...PaymentRequiredBody, description: 'Plan allowance exhausted' },
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
        summary: 'List documents, newest first',
        querystring: ListDocumentsQuery,
        response: withCommonErrors({ 200: DocumentList, 400: { ...ErrorBody, description: 'Invalid query parameter' } }),
      },
    },
    async (request) => {
      const { status, include_self_sealed = false, limit = 20, offset = 0 } = request.query
      return listDocuments(db, principalOf(request), { status, includeSelfSealed: include_self_sealed, limit, offset })
    },
  )

  app.get(
    '/documents/:id',
    {
      onRequest: rateLimit(services, RATE_LIMITS.readDocument),
      schema: {
        tags,
        summary: 'Read a document and its signers',
        params: DocumentIdParams,
        response: withCommonErrors({ 200: DocumentView, 404: { ...ErrorBody, description: 'No such document in this org' } }),
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
        summary: 'Void a document that is out for signature',
        params: DocumentIdParams,
        response: withCommonErrors({
          200: VoidResult,
          400: { ...ErrorBody, description: 'Only documents out for signature can be voided' },
          404: { ...ErrorBody, description: 'No such document in this org' },
        }),
      },
    },
    async (request) => {
      rejectAnyBody(request.body)
      return voidDocument(services, actorOf(request), request.params.id)
    },
  )

  const downloads = [
    { path: 'signed-file', summary: 'Download the flattened signed PDF', get: getSignedFile, type: 'application/pdf' as const, limit: RATE_LIMITS.signedFile },
    { path: 'certificate', summary: 'Download the standalone seal certificate PDF', get: getCertificateFile, type: 'application/pdf' as const, limit: RATE_LIMITS.certificate },
    { path: 'badge', summary: 'Download the Verified Badge PNG', get: getBadgeImage, type: 'image/png' as const, limit: RATE_LIMITS.badge },
  ]
  for (const download of downloads) {
    app.get(
      `/documents/:id/${download.path}`,
      {
        onRequest: rateLimit(services, download.limit),
        schema: {
          tags,
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

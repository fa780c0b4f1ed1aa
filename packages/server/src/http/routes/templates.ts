import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifySchemaCompiler } from 'fastify'
import { Type, type TSchema } from 'typebox'
import { invalid } from '../../errors.ts'
import { compileCoercing, compileStrict } from '../../lib/validation.ts'
import type { Services } from '../../services.ts'
import { uploadTemplate } from '../../templates/create-template.ts'
import { listTemplates } from '../../templates/list-templates.ts'
import {
  deleteTemplate,
  duplicateTemplate,
  getTemplate,
  getTemplatePdf,
  renameTemplate,
  setTemplateFields,
  setTemplateRoles,
} from '../../templates/manage-templates.ts'
import { SetTemplateRolesBody } from '../../templates/roles.schemas.ts'
import {
  ListTemplatesQuery,
  RenameTemplateBody,
  SetTemplateFieldsBody,
  SetTemplateFieldsEnvelope,
  TemplateDetail,
  TemplateIdParams,
  TemplateList,
  UploadTemplateQuery,
} from '../../templates/templates.schemas.ts'
import { principalOf } from '../auth.ts'
import { binaryBodyParser } from '../binary-body.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { sendFile } from '../send-file.ts'
import { ErrorBody, PaymentRequiredBody, withCommonErrors } from '../schemas.ts'

const tags = ['Templates']
const PDF = 'application/pdf'

const PdfUpload = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The PDF (at most 25 MB by default), sent as the raw body' })
const noTemplate = { ...ErrorBody, description: 'No such template in this org (or it was deleted)' }
const freeRule = { ...PaymentRequiredBody, description: "The plan's template limit is reached (Free: one template); the body has upgrade_url" }

/*
 * PUT …/fields publishes the field schema but checks only the envelope itself: the fields are
 * checked by resolveFields, so the dashboard gets exactly the CLI's texts ("Invalid fields: …").
 */
const fieldsEnvelopeCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) =>
  httpPart === 'body' ? compileStrict(SetTemplateFieldsEnvelope) : compileCoercing(schema)

/** Templates: the list, and the dashboard's upload and field editor (every role of a workspace may manage them). */
export const templateRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const pdfLimit = services.config.pdfLimits.maxBytes
  app.addContentTypeParser(PDF, { bodyLimit: pdfLimit }, binaryBodyParser(pdfLimit))
  const limited = rateLimit(services, RATE_LIMITS.templates)

  app.get(
    '/templates',
    {
      onRequest: rateLimit(services, RATE_LIMITS.listTemplates),
      schema: {
        tags,
        operationId: 'listTemplates',
        summary: 'List templates, newest first',
        querystring: ListTemplatesQuery,
        response: withCommonErrors({ 200: TemplateList, 400: { ...ErrorBody, description: 'Invalid query parameter' } }),
      },
    },
    async (request) => {
      const { limit = 500, offset = 0 } = request.query
      return listTemplates(services.db, principalOf(request), { limit, offset })
    },
  )

  app.post(
    '/templates',
    {
      onRequest: limited,
      bodyLimit: pdfLimit,
      config: { accepts: PDF, bodyLimitSetting: 'PDF_MAX_MB' },
      schema: {
        tags,
        operationId: 'uploadTemplate',
        summary: 'Upload a PDF as a new template (no fields yet: place them with PUT /templates/{id}/fields)',
        consumes: [PDF],
        body: PdfUpload,
        querystring: UploadTemplateQuery,
        response: withCommonErrors({
          201: { ...TemplateDetail, description: 'Created, with each page’s size as displayed' },
          400: { ...ErrorBody, description: 'Not a readable PDF (not a PDF, truncated, encrypted, no pages), or an invalid name' },
          402: freeRule,
          413: { ...ErrorBody, description: 'The PDF is over a limit of this server (size, pages, objects, image size or decompressed size)' },
          415: { ...ErrorBody, description: 'The body is not application/pdf' },
          503: { ...ErrorBody, description: 'The server is busy with other documents: try again after Retry-After seconds' },
        }),
      },
    },
    async (request, reply) => {
      if (!Buffer.isBuffer(request.body) || request.body.byteLength === 0) throw invalid('Send the PDF as the request body (Content-Type: application/pdf).')
      const template = await uploadTemplate(services, { orgId: principalOf(request).orgId, name: request.query.name, pdf: request.body })
      return reply.status(201).send(template)
    },
  )

  app.get(
    '/templates/:id',
    {
      onRequest: limited,
      schema: {
        tags,
        operationId: 'getTemplate',
        summary: 'Read a template: its fields, roles and page sizes',
        params: TemplateIdParams,
        response: withCommonErrors({ 200: TemplateDetail, 404: noTemplate }),
      },
    },
    async (request) => getTemplate(services, principalOf(request), request.params.id),
  )

  app.get(
    '/templates/:id/pdf',
    {
      onRequest: limited,
      schema: {
        tags,
        operationId: 'getTemplatePdf',
        summary: "Download the template's PDF",
        params: TemplateIdParams,
        response: withCommonErrors({
          200: { description: "The template's PDF", content: { [PDF]: { schema: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' }) } } },
          404: noTemplate,
        }),
      },
    },
    async (request, reply) => sendFile(reply, await getTemplatePdf(services, principalOf(request), request.params.id)),
  )

  app.put(
    '/templates/:id/fields',
    {
      onRequest: limited,
      validatorCompiler: fieldsEnvelopeCompiler,
      schema: {
        tags,
        operationId: 'setTemplateFields',
        summary: "Replace the template's fields (PDF points from the top-left of each page as displayed)",
        params: TemplateIdParams,
        body: SetTemplateFieldsBody,
        response: withCommonErrors({
          200: TemplateDetail,
          400: { ...ErrorBody, description: 'Invalid fields (the same checks and texts as the CLI), or a field off its page' },
          404: noTemplate,
          409: { ...ErrorBody, description: 'Documents were sent from this template: duplicate it to change the fields' },
        }),
      },
    },
    async (request) => setTemplateFields(services, principalOf(request), request.params.id, request.body.fields as unknown),
  )

  app.put(
    '/templates/:id/roles',
    {
      onRequest: limited,
      schema: {
        tags,
        operationId: 'setTemplateRoles',
        summary: "Name the template's roles and set their default signing order (extension); replaces the names and steps set before",
        params: TemplateIdParams,
        body: SetTemplateRolesBody,
        response: withCommonErrors({
          200: TemplateDetail,
          400: {
            ...ErrorBody,
            description:
              'A name empty, too long or used twice, a role listed twice or without fields, or default steps on some roles but not all (field names it)',
          },
          404: noTemplate,
        }),
      },
    },
    async (request) => setTemplateRoles(services, principalOf(request), request.params.id, request.body.roles),
  )

  app.patch(
    '/templates/:id',
    {
      onRequest: limited,
      schema: {
        tags,
        operationId: 'renameTemplate',
        summary: 'Rename a template',
        params: TemplateIdParams,
        body: RenameTemplateBody,
        response: withCommonErrors({ 200: TemplateDetail, 400: { ...ErrorBody, description: 'Invalid name' }, 404: noTemplate }),
      },
    },
    async (request) => renameTemplate(services, principalOf(request), request.params.id, request.body.name),
  )

  app.delete(
    '/templates/:id',
    {
      onRequest: limited,
      schema: {
        tags,
        operationId: 'deleteTemplate',
        summary: 'Delete a template (documents already sent from it are not affected)',
        params: TemplateIdParams,
        response: withCommonErrors({ 204: Type.Null({ description: 'Deleted' }), 404: noTemplate }),
      },
    },
    async (request, reply) => {
      await deleteTemplate(services, principalOf(request), request.params.id)
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/templates/:id/duplicate',
    {
      onRequest: limited,
      schema: {
        tags,
        operationId: 'duplicateTemplate',
        summary: 'Copy a template (same PDF and fields), named "Copy of …"',
        params: TemplateIdParams,
        response: withCommonErrors({ 201: TemplateDetail, 402: freeRule, 404: noTemplate }),
      },
    },
    async (request, reply) => reply.status(201).send(await duplicateTemplate(services, principalOf(request), request.params.id)),
  )
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Services } from '../../services.ts'
import { listTemplates } from '../../templates/list-templates.ts'
import { principalOf } from '../auth.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { ErrorBody, Offset, Timestamp, withCommonErrors } from '../schemas.ts'

const Template = Type.Object(
  { id: Type.String({ format: 'uuid' }), name: Type.String(), page_count: Type.Integer(), created_at: Timestamp },
  { additionalProperties: false },
)

const ListTemplatesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 500 })),
    offset: Type.Optional(Offset),
  },
  { additionalProperties: false },
)

const TemplateList = Type.Object(
  {
    templates: Type.Array(Template),
    total: Type.Union([Type.Integer(), Type.Null()]),
    limit: Type.Integer(),
    offset: Type.Integer(),
    has_more: Type.Boolean(),
    org_name: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
)

export const templateRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/templates',
    {
      onRequest: rateLimit(services, RATE_LIMITS.listTemplates),
      schema: {
        tags: ['Templates'],
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
}

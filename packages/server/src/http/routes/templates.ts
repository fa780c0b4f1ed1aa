import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Services } from '../../services.ts'
import { listTemplates } from '../../templates/list-templates.ts'
import { principalOf } from '../auth.ts'
import { rateLimit, RATE_LIMITS } from '../rate-limit.ts'
import { ErrorBody, withCommonErrors } from '../schemas.ts'
import { ListTemplatesQuery, TemplateList } from '../../templates/templates.schemas.ts'

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

import { Type, type Static } from 'typebox'
import { Offset, Timestamp } from '../lib/schemas.ts'

export const Template = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    page_count: Type.Integer(),
    created_at: Timestamp,
    roles: Type.Array(Type.Integer({ minimum: 0 }), { description: "the signer roles the template's fields belong to (0 is Party 1): a send needs one signer per role" }),
  },
  { additionalProperties: false },
)

export const ListTemplatesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 500 })),
    offset: Type.Optional(Offset),
  },
  { additionalProperties: false },
)

export const TemplateList = Type.Object(
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

export type TemplateView = Static<typeof Template>
export type TemplateList = Static<typeof TemplateList>

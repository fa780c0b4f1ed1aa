import { Type, type Static } from 'typebox'
import { FIELD_TYPES } from '../db/schema.ts'
import { Offset, Timestamp } from '../lib/schemas.ts'
import { displayName } from '../lib/visible-text.ts'
import { FieldsInput, MAX_ROLE } from './fields.ts'
import { TemplateRoleNames } from './roles.schemas.ts'

export const Template = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    page_count: Type.Integer(),
    created_at: Timestamp,
    roles: Type.Array(Type.Integer({ minimum: 0 }), {
      description: "the signer roles the template's fields belong to (0 is Party 1): a send needs one signer per role",
    }),
    role_names: Type.Optional(TemplateRoleNames),
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

export const TemplateIdParams = Type.Object({ id: Type.String({ description: 'a template id (UUID)' }) }, { additionalProperties: false })

export const UploadTemplateQuery = Type.Object(
  { name: displayName(Type.String({ minLength: 1, maxLength: 200, description: "the template's name (1 to 200 characters)" })) },
  { additionalProperties: false },
)

/** A stored field: page 1-based, PDF points from the top-left corner of the page as displayed (see TemplatePage). */
export const TemplateFieldView = Type.Object(
  {
    role: Type.Integer({ minimum: 0, maximum: MAX_ROLE, description: '0 is Party 1' }),
    type: Type.Enum(FIELD_TYPES),
    page: Type.Integer({ minimum: 1 }),
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    width: Type.Number({ exclusiveMinimum: 0 }),
    height: Type.Number({ exclusiveMinimum: 0 }),
    required: Type.Boolean(),
    label: Type.Optional(Type.String()),
    name: Type.Optional(Type.String({ description: "extension: the identifier a send's `fields` prefill names this field by" })),
    options: Type.Optional(Type.Array(Type.String(), { description: "extension: a radio or dropdown field's choices" })),
    min: Type.Optional(Type.Number({ description: "extension: a number field's smallest value" })),
    max: Type.Optional(Type.Number({ description: "extension: a number field's largest value" })),
  },
  { additionalProperties: false },
)

export const TemplatePage = Type.Object(
  {
    width: Type.Number({ description: 'PDF points, as a viewer displays the page: its visible box (CropBox within MediaBox), turned by /Rotate' }),
    height: Type.Number({ description: 'PDF points, as displayed' }),
  },
  { additionalProperties: false },
)

export const TemplateDetail = Type.Object(
  {
    ...Template.properties,
    updated_at: Timestamp,
    fields: Type.Array(TemplateFieldView),
    pages: Type.Array(TemplatePage, { description: 'one entry per page, in order; fields are measured in this space' }),
  },
  { additionalProperties: false },
)

/** The published shape of PUT …/fields; the route checks `fields` itself (resolveFields), with the CLI's texts. */
export const SetTemplateFieldsBody = Type.Object({ fields: FieldsInput }, { additionalProperties: false })
export const SetTemplateFieldsEnvelope = Type.Object({ fields: Type.Unknown() }, { additionalProperties: false })

export const RenameTemplateBody = Type.Object(
  { name: displayName(Type.String({ minLength: 1, maxLength: 200, description: '1 to 200 characters' })) },
  { additionalProperties: false },
)

export type TemplateDetail = Static<typeof TemplateDetail>

import { Type, type Static } from 'typebox'
import { MAX_SIGNING_ORDER } from '../documents/documents.schemas.ts'
import { displayName } from '../lib/visible-text.ts'
import { MAX_ROLE } from './fields.ts'

/** Extension (issue 22): a template role's name and its default step in a signing order. */

export const MAX_ROLE_NAME = 100

export const RoleName = displayName(
  Type.String({
    minLength: 1,
    maxLength: MAX_ROLE_NAME,
    description: 'what signers, senders and the certificate call this role ("Landlord"); 1 to 100 characters',
  }),
)

export const DefaultOrder = Type.Integer({
  minimum: 1,
  maximum: MAX_SIGNING_ORDER,
  description:
    "the role's default step in a signing order (1 to 20; equal numbers sign in parallel), used when a send gives no `order`. Give it on every role of the template or on none",
})

export const TemplateRoleInput = Type.Object(
  {
    role: Type.Integer({ minimum: 0, maximum: MAX_ROLE, description: 'a role the template has fields for (0 is Party 1)' }),
    name: RoleName,
    order: Type.Optional(DefaultOrder),
  },
  { additionalProperties: false },
)

export const SetTemplateRolesBody = Type.Object(
  {
    roles: Type.Array(TemplateRoleInput, {
      maxItems: MAX_ROLE + 1,
      description: 'every named role, once; a role left out is "Party N" again, with no default step. [] clears every name and step',
    }),
  },
  { additionalProperties: false },
)

/** How a template's named roles are shown: in role order, each with its name and, when set, its default step. */
export const TemplateRoleView = Type.Object(
  {
    role: Type.Integer({ minimum: 0, maximum: MAX_ROLE }),
    name: Type.String(),
    order: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SIGNING_ORDER })),
  },
  { additionalProperties: false },
)

export const TemplateRoleNames = Type.Array(TemplateRoleView, {
  description: 'extension, only when the template names a role: the named roles (others are "Party N") and their default signing order',
})

export type SetTemplateRolesBody = Static<typeof SetTemplateRolesBody>
export type TemplateRoleInput = Static<typeof TemplateRoleInput>

import type { TemplateRole } from '../db/schema.ts'
import { defaultOrderIn, roleNameIn } from '../templates/roles.ts'

/**
 * What a send takes from the template's named roles (extension, issue 22): each signer's role
 * name, copied onto the signer so a later rename changes no document already sent; and, when
 * the request gives no `order` on any signer, the template's default steps. A request's own
 * orders always win, and `order: null` on the signers sends to everyone at once whatever the
 * template's default. A single `signer` is sent no step (it has no one to wait for).
 */
export function withTemplateRoles<R extends { role: number; order?: number | null | undefined }>(
  requested: R[],
  roleNames: TemplateRole[] | null,
  single: boolean,
): (Omit<R, 'order'> & { order?: number; roleName: string | null })[] {
  const requestDecides = requested.some((r) => r.order !== undefined)
  // Stored steps cover every role or none; a template whose roles changed under a send is treated as having none.
  const defaults = single || requestDecides ? [] : requested.map((r) => defaultOrderIn(roleNames, r.role))
  const useDefaults = defaults.length > 0 && defaults.every((order) => order !== undefined)
  return requested.map(({ order, ...recipient }, index) => {
    const step = requestDecides ? (order ?? undefined) : useDefaults ? defaults[index] : undefined
    return { ...recipient, ...(step === undefined ? {} : { order: step }), roleName: roleNameIn(roleNames, recipient.role) }
  })
}

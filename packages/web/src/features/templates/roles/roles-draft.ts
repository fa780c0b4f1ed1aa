import { partyLabel } from '../../../lib/vocabulary.ts'
import type { TemplateRoleEntry } from '../queries.ts'

/**
 * The template editor's Roles card as typed: a name per role (blank: "Party N") and, when the
 * roles sign one after another by default, a step per role. The server takes steps on every
 * role or on none, so the card has one switch for all of them, as the Send page does.
 */
export interface RolesDraft {
  names: Record<number, string>
  ordered: boolean
  /** As typed (a cleared box is ''). */
  steps: Record<number, string>
}

/** The draft of a template as saved: its names, and its steps (or 1, 2, 3… in role order, for when the switch is turned on). */
export function draftOfRoles(roles: number[], saved: TemplateRoleEntry[] | undefined): RolesDraft {
  const entry = (role: number) => saved?.find((e) => e.role === role)
  return {
    names: Object.fromEntries(roles.map((role) => [role, entry(role)?.name ?? ''])),
    ordered: saved?.some((e) => e.order !== undefined) ?? false,
    steps: Object.fromEntries(roles.map((role, index) => [role, String(entry(role)?.order ?? index + 1)])),
  }
}

/**
 * The body of PUT …/roles: each named role, and with steps every role (an unnamed one under its
 * "Party N"). A cleared or odd step is sent as it is (as 0): the server's refusal then shows
 * under that role's Step.
 */
export function rolesForSave(roles: number[], draft: RolesDraft): TemplateRoleEntry[] {
  return roles.flatMap((role) => {
    const name = (draft.names[role] ?? '').trim()
    if (!draft.ordered && name === '') return []
    return [{ role, name: name || partyLabel(role), ...(draft.ordered ? { order: Number(draft.steps[role] ?? '') } : {}) }]
  })
}

/** Whether the draft would save something other than what is saved. */
export const rolesChanged = (roles: number[], draft: RolesDraft, saved: TemplateRoleEntry[] | undefined): boolean =>
  JSON.stringify(rolesForSave(roles, draft)) !== JSON.stringify(rolesForSave(roles, draftOfRoles(roles, saved)))

export type RoleControl = `${number}.name` | `${number}.order`

/** The control a refusal's `field` points at (`/roles/1/name` → the name of the role sent second), or null for the card as a whole. */
export function roleControlFor(field: string | undefined, sent: TemplateRoleEntry[]): RoleControl | null {
  const match = /^\/roles\/(\d+)\/(name|order)$/.exec(field ?? '')
  const entry = match ? sent[Number(match[1])] : undefined
  return match && entry ? `${entry.role}.${match[2] as 'name' | 'order'}` : null
}

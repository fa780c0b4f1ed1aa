import { partyLabel } from '@signet/vocabulary'
import type { TemplateRole } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import type { TemplateRoleInput } from './roles.schemas.ts'

/*
 * Named roles (extension, issue 22): a template may call its roles "Landlord" and "Tenant"
 * instead of "Party 1" and "Party 2", and give each a default step in a signing order. A send
 * copies the name onto each signer (signers.role_name), so renaming a role later changes no
 * document already sent; a send without `order` takes the default steps.
 */

const partyAndRole = (role: number): string => `${partyLabel(role)} (role ${role})`
/** Names compared as people read them: "Tenant" and "tenant " are the same name on a Send page. */
const sameName = (name: string): string => name.normalize('NFKC').toLocaleLowerCase('en')

/**
 * The names and steps of a PUT …/roles, checked against the roles the template's fields have:
 * each role once and with fields, each name unique among the template's role names (an unnamed
 * role's "Party N" included), and default steps on every role of the template or on none (the
 * rule a send's `order` follows). Sorted by role.
 */
export function resolveTemplateRoles(input: TemplateRoleInput[], templateRoles: number[]): TemplateRole[] {
  const existing = new Set(templateRoles)
  const seenRoles = new Set<number>()
  const resolved = input.map((entry, index): TemplateRole => {
    if (!existing.has(entry.role)) {
      throw invalid(`roles[${index}].role: the template has no fields for ${partyAndRole(entry.role)}; place its fields first.`, {
        field: `/roles/${index}/role`,
      })
    }
    if (seenRoles.has(entry.role)) throw invalid(`roles[${index}].role: ${partyAndRole(entry.role)} is listed twice.`, { field: `/roles/${index}/role` })
    seenRoles.add(entry.role)
    const name = entry.name.trim()
    if (name.length === 0) throw invalid(`roles[${index}].name must be 1 to 100 visible characters.`, { field: `/roles/${index}/name` })
    return { role: entry.role, name, ...(entry.order === undefined ? {} : { order: entry.order }) }
  })

  // Each name against the "Party N" of every role left unnamed and the names listed before it (the later of two is refused).
  const taken = new Map(templateRoles.filter((role) => !seenRoles.has(role)).map((role) => [sameName(partyLabel(role)), role]))
  resolved.forEach((entry, index) => {
    const holder = taken.get(sameName(entry.name))
    if (holder !== undefined) {
      throw invalid(`roles[${index}].name: "${entry.name}" is already the name of ${partyAndRole(holder)}; each role needs its own name.`, {
        field: `/roles/${index}/name`,
      })
    }
    taken.set(sameName(entry.name), entry.role)
  })

  const ordered = resolved.filter((entry) => entry.order !== undefined)
  if (ordered.length > 0) {
    const unordered = input.findIndex((entry) => entry.order === undefined)
    if (unordered >= 0) {
      throw invalid(`roles[${unordered}].order is missing: give every role of the template a default step (1, 2, 3…), or none.`, {
        field: `/roles/${unordered}/order`,
      })
    }
    const unlisted = templateRoles.find((role) => !seenRoles.has(role))
    if (unlisted !== undefined) {
      throw invalid(`${partyAndRole(unlisted)} has no default step: list every role of the template with an order, or give none.`, { field: '/roles' })
    }
  }
  return resolved.sort((a, b) => a.role - b.role)
}

/**
 * The names and steps that still hold after the template's fields changed: a role without
 * fields any more loses its name, and the default steps go when they no longer cover every
 * role (a new role has none), as a send's orders must be all or none.
 */
export function rolesStillIn(roleNames: TemplateRole[] | null, templateRoles: number[]): TemplateRole[] | null {
  if (!roleNames) return null
  const kept = roleNames.filter((entry) => templateRoles.includes(entry.role))
  const ordersCoverAll = templateRoles.every((role) => kept.some((entry) => entry.role === role && entry.order !== undefined))
  const result = ordersCoverAll ? kept : kept.map(({ role, name }) => ({ role, name }))
  return result.length > 0 ? result : null
}

/** The name a template gave `role`, or null (it is "Party N"). */
export const roleNameIn = (roleNames: TemplateRole[] | null, role: number): string | null => roleNames?.find((entry) => entry.role === role)?.name ?? null

/** The template's default step for `role`; stored steps cover every role of the template or none (resolveTemplateRoles, rolesStillIn). */
export const defaultOrderIn = (roleNames: TemplateRole[] | null, role: number): number | undefined => roleNames?.find((entry) => entry.role === role)?.order

/** `role_names` on a template's view, only when it names a role (a spec client's template looks as the spec says). */
export const roleNamesView = (roleNames: TemplateRole[] | null): { role_names?: TemplateRole[] } =>
  roleNames && roleNames.length > 0 ? { role_names: roleNames.map((entry) => ({ ...entry })) } : {}

import { partyLabel } from '../../lib/vocabulary.ts'

/** The names a template gives its roles (its `role_names`); a role without one is "Party N". */
export type RoleNames = readonly { role: number; name: string }[]

const nameOf = (names: RoleNames, role: number): string | undefined => names.find((entry) => entry.role === role)?.name

/** A role as the editor shows it: the template's name for it ("Landlord"), else "Party 1". */
export const roleLabel = (names: RoleNames, role: number): string => nameOf(names, role) ?? partyLabel(role)

/** A role on a field box, where room is short: its name (the box cuts a long one short), else "P1". */
export const shortRoleLabel = (names: RoleNames, role: number): string => nameOf(names, role) ?? partyLabel(role).replace('Party ', 'P')

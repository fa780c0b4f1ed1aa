/**
 * One colour per role, the same on every page and in the side panel: a solid border and label
 * (≥ 4.5:1 on white) and a light fill. Roles past the list reuse it in turn.
 */
const PALETTE = [
  { border: '#3240b8', fill: 'rgba(63, 79, 216, 0.14)' },
  { border: '#b45309', fill: 'rgba(217, 119, 6, 0.16)' },
  { border: '#047857', fill: 'rgba(16, 185, 129, 0.16)' },
  { border: '#be185d', fill: 'rgba(236, 72, 153, 0.14)' },
  { border: '#6d28d9', fill: 'rgba(139, 92, 246, 0.14)' },
  { border: '#0e7490', fill: 'rgba(6, 182, 212, 0.16)' },
] as const

export type RoleColour = (typeof PALETTE)[number]

export const roleColour = (role: number): RoleColour => PALETTE[role % PALETTE.length] ?? PALETTE[0]

/** A value of one party on the Send page: its e-mail, name, role (shown with the e-mail), code switch and step. */
const PARTY_VALUES = ['email', 'name', 'role', 'auth_required', 'order'] as const
type PartyValue = (typeof PARTY_VALUES)[number]

/** A number of the Send page's Custom reminders. */
const REMINDER_VALUES = ['first_after_days', 'every_days', 'max'] as const
type ReminderValue = (typeof REMINDER_VALUES)[number]

/** A control of the Send page an error can be shown under. */
export type SendControl = 'template_id' | 'expires_at' | 'invite_subject' | 'invite_message' | `party.${number}.${PartyValue}` | `reminders.${ReminderValue}`

const FORM_CONTROLS = new Set(['template_id', 'expires_at', 'invite_subject', 'invite_message'])
const isPartyValue = (name: string): name is PartyValue => (PARTY_VALUES as readonly string[]).includes(name)
const isReminderValue = (name: string): name is ReminderValue => (REMINDER_VALUES as readonly string[]).includes(name)

/**
 * The control a POST /documents error's `field` (a JSON pointer into the body the page sent)
 * points at: `/signer/email` is the one party's e-mail, `/signers/1/email` the e-mail of the party
 * sent second (`signerRoles` maps that position back to its role), `/signers/1/order` that party's
 * step, `/reminders/max` the most reminders of a Custom schedule. Null: the error belongs to the
 * whole form (no field, one that concerns all signers, such as `/signers`, or the whole schedule,
 * `/reminders`, or a value the page has no control for, which would be hidden under none).
 */
export function controlFor(field: string | undefined, signerRoles: number[]): SendControl | null {
  const [, first, second, third] = (field ?? '').split('/')
  if (first === 'signer' && second) return isPartyValue(second) ? `party.${signerRoles[0] ?? 0}.${second}` : null
  if (first === 'signers' && second !== undefined && third) {
    const role = signerRoles[Number(second)]
    return role === undefined || !isPartyValue(third) ? null : `party.${role}.${third}`
  }
  if (first === 'reminders') return second !== undefined && third === undefined && isReminderValue(second) ? `reminders.${second}` : null
  return first && second === undefined && FORM_CONTROLS.has(first) ? (first as SendControl) : null
}

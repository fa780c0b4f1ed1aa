/** A control of the Send page an error can be shown under. */
export type SendControl = 'template_id' | 'expires_at' | 'invite_subject' | 'invite_message' | `party.${number}.${string}`

const FORM_CONTROLS = new Set(['template_id', 'expires_at', 'invite_subject', 'invite_message'])

/**
 * The control a POST /documents error's `field` (a JSON pointer into the body the page sent)
 * points at: `/signer/email` is the one party's e-mail, `/signers/1/email` the e-mail of the party
 * sent second (`signerRoles` maps that position back to its role). Null: the error belongs to the
 * whole form (no field, or one that concerns all signers, such as `/signers`).
 */
export function controlFor(field: string | undefined, signerRoles: number[]): SendControl | null {
  const [, first, second, third] = (field ?? '').split('/')
  if (first === 'signer' && second) return `party.${signerRoles[0] ?? 0}.${second}`
  if (first === 'signers' && second !== undefined && third) {
    const role = signerRoles[Number(second)]
    return role === undefined ? null : `party.${role}.${third}`
  }
  return first && second === undefined && FORM_CONTROLS.has(first) ? (first as SendControl) : null
}

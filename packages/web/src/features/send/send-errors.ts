/**
 * Which form control a POST /documents error text concerns, from the path the server's texts start
 * with (lib/validation.ts: "signer.email must be …", "signers[1].email …", "expires_at must be …") or
 * the few domain texts (create-document.ts). `signerRoles` maps signers[i] back to its role.
 * Null: the error belongs to the whole form.
 */
export function errorTarget(message: string, signerRoles: number[]): string | null {
  const single = /^signer\.(\w+)/.exec(message)
  if (single) return `party.0.${single[1]}`
  const party = /^signers\[(\d+)\]\.(\w+)/.exec(message)
  if (party) {
    const role = signerRoles[Number(party[1])]
    return role === undefined ? null : `party.${role}.${party[2]}`
  }
  if (message.startsWith('expires_at')) return 'expires_at'
  if (message.startsWith('invite_subject')) return 'invite_subject'
  if (message.startsWith('invite_message')) return 'invite_message'
  if (message.startsWith('template_id') || message === 'Template not found.') return 'template_id'
  return null
}

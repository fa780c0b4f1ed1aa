import { parseRecipient, type Recipient } from '../args.ts'
import { connect } from '../client.ts'
import { usageError } from '../exit-codes.ts'
import { bold, note, print, printJson } from '../output.ts'

export interface SendOptions {
  template: string
  to?: Recipient[]
  signer?: string[]
  title?: string
  json?: boolean
}

interface RoleSigner extends Recipient {
  role: number | string
}

/** `1=bob@example.com:Bob` or `Landlord=bob@example.com`. */
function parseRoleSigner(value: string): RoleSigner {
  const equals = value.indexOf('=')
  if (equals < 1)
    throw usageError(`--signer ${value}: write <role>=<email>[:<name>], e.g. --signer 0=ann@example.com:Ann or --signer Landlord=ann@example.com.`)
  const role = value.slice(0, equals).trim()
  let recipient: Recipient
  try {
    recipient = parseRecipient(value.slice(equals + 1))
  } catch (error) {
    throw usageError(`--signer ${value}: ${error instanceof Error ? error.message : String(error)}`)
  }
  return { ...recipient, role: /^\d+$/.test(role) ? Number(role) : role }
}

type Signet = ReturnType<typeof connect>['signet']

/** Role names (`Landlord`) looked up in the template's named roles; numbers kept as they are. */
async function withRoleNumbers(signet: Signet, templateId: string, signers: RoleSigner[]): Promise<(Recipient & { role: number })[]> {
  const named = signers.some((s) => typeof s.role === 'string') ? ((await signet.templates.get(templateId)).role_names ?? []) : []
  return signers.map((s) => {
    if (typeof s.role === 'number') return { ...s, role: s.role }
    const wanted = s.role.toLowerCase()
    const match = named.find((n) => n.name.toLowerCase() === wanted)
    if (!match)
      throw usageError(`--signer: the template has no role named "${s.role}" (its roles: ${named.map((n) => n.name).join(', ') || 'none named; use 0, 1, …'}).`)
    return { ...s, role: match.role }
  })
}

export async function send(options: SendOptions): Promise<number> {
  const to = options.to ?? []
  const roleSigners = (options.signer ?? []).map(parseRoleSigner)
  if (to.length === 0 && roleSigners.length === 0)
    throw usageError('Name the signers: --to ann@example.com[:Ann] (repeatable), or --signer <role>=<email>[:<name>].')
  if (to.length > 0 && roleSigners.length > 0) throw usageError('Use either --to or --signer, not both.')
  const { signet } = connect()
  const signers = to.length > 0 ? to.map((recipient, role) => ({ ...recipient, role })) : await withRoleNumbers(signet, options.template, roleSigners)

  const title = options.title !== undefined ? { title: options.title } : {}
  const only = signers.length === 1 && signers[0]?.role === 0 ? signers[0] : undefined
  const body = only
    ? { template_id: options.template, signer: { email: only.email, ...(only.name ? { name: only.name } : {}) }, ...title }
    : { template_id: options.template, signers: signers.map((s) => ({ role: s.role, email: s.email, ...(s.name ? { name: s.name } : {}) })), ...title }
  const created = await signet.documents.create(body)
  if (options.json) {
    printJson(created)
    return 0
  }
  print(`Sent ${bold(created.id)} to ${signers.map((s) => (s.name ? `${s.name} <${s.email}>` : s.email)).join(', ')}.`)
  const warnings =
    'domain_warning' in created && created.domain_warning ? [created.domain_warning] : 'domain_warnings' in created ? (created.domain_warnings ?? []) : []
  for (const warning of warnings) note(`Warning: ${warning}`)
  print(`Follow it with: signet status ${created.id} --watch`)
  return 0
}

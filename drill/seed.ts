/**
 * The instance the drill runs on, seeded as an operator seeds one, with the admin CLI: a Business
 * workspace with its API key, a one-page template with one signature field, an owner who signs
 * in to the dashboard, and a webhook endpoint at the drill's receiver.
 */
import { runCliJson, writeJson, writePdf, type CreatedOrg, type CreatedTemplate } from '../packages/server/test/helpers/processes.ts'
import type { Seeded } from './load.ts'

const OWNER = { email: 'owner@drill.example', password: 'drill-password-not-secret-1' }
const SIGNATURE_FIELD = [{ role: 0, type: 'signature', page: 1, x: 72, y: 140, width: 200, height: 40, label: 'Signature' }]

export async function seed(workDir: string, databaseUrl: string, webhookUrl: string): Promise<Seeded> {
  // The receiver listens on loopback, as the nodes are told to allow (WEBHOOK_ALLOW_PRIVATE).
  const env = { DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: 'true' }
  const cli = <T>(args: string[]) => runCliJson<T>(workDir, args, env)
  const org = await cli<CreatedOrg>(['org', 'create', '--name', 'Drill Org', '--plan', 'business'])
  const pdf = await writePdf(workDir, 'drill.pdf', 1)
  const fields = writeJson(workDir, 'fields.json', SIGNATURE_FIELD)
  const template = await cli<CreatedTemplate>(['template', 'create', '--org', org.org_id, '--name', 'Drill Agreement', '--pdf', pdf, '--fields', fields])
  await cli(['user', 'create', '--email', OWNER.email, '--name', 'Drill Owner', '--password', OWNER.password, '--org', org.org_id, '--role', 'owner'])
  await cli(['webhook', 'add', '--org', org.org_id, '--url', webhookUrl])
  return { orgId: org.org_id, apiKey: org.api_key, templateId: template.id, owner: OWNER }
}

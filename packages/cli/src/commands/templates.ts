import type { TemplateListItem } from '@signet/sdk'
import { connect } from '../client.ts'
import { print, printJson, shortDate, table } from '../output.ts'

export async function listTemplates(options: { json?: boolean }): Promise<number> {
  const { signet } = connect()
  const templates: TemplateListItem[] = []
  for await (const template of signet.templates.list()) templates.push(template)
  if (options.json) {
    printJson(templates)
    return 0
  }
  if (templates.length === 0) {
    print('No templates yet: upload a PDF in the dashboard (Templates → New template).')
    return 0
  }
  const roles = (template: TemplateListItem) =>
    template.roles.map((role) => template.role_names?.find((named) => named.role === role)?.name ?? `Party ${role + 1}`).join(', ')
  print(
    table(
      ['ID', 'NAME', 'PAGES', 'SIGNERS', 'CREATED'],
      templates.map((t) => [t.id, t.name, String(t.page_count), roles(t), shortDate(t.created_at)]),
    ),
  )
  return 0
}

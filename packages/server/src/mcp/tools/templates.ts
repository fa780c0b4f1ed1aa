import { listTemplates } from '../../templates/list-templates.ts'
import { ListTemplatesQuery, TemplateList } from '../../templates/templates.schemas.ts'
import { defineTool } from '../tool.ts'

export const listTemplatesTool = defineTool({
  name: 'list_templates',
  title: 'List templates',
  description:
    "Lists the organization's PDF templates, newest first, to find the template_id that create_and_send_document needs. " +
    'Each template has its name, page count and `roles`: the signer roles its fields belong to (role 0 is Party 1). ' +
    'A template that names its roles has `role_names` ([{role, name, order?}], e.g. role 0 "Landlord"): match each signer to a role by its name; `order` is the default signing step. ' +
    'A template with one role takes signer_email; one with several roles needs `signers`, one per role. ' +
    'Templates are uploaded by people in the dashboard; this tool cannot create them.',
  input: ListTemplatesQuery,
  output: TemplateList,
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async ({ services, actor }, { limit = 500, offset = 0 }) => ({ structured: await listTemplates(services.db, actor, { limit, offset }) }),
})

import { useState, type FormEvent } from 'react'
import { ApiError } from '../../../api/client.ts'
import { Button, Card, ErrorMessage, Field, Input, Switch, useToast } from '../../../components/index.ts'
import { peopleTextFor } from '../../../lib/people-text.ts'
import { partyLabel } from '../../../lib/vocabulary.ts'
import { roleColour } from '../editor/role-colours.ts'
import { useSaveTemplateRoles, type TemplateDetail, type TemplateRoleEntry } from '../queries.ts'
import { draftOfRoles, roleControlFor, rolesChanged, rolesForSave, type RoleControl, type RolesDraft } from './roles-draft.ts'

/** The highest step the server takes (roles with the same step sign at the same time). */
const MAX_STEP = 20

/**
 * The template editor's Roles card: what each role of the saved fields is called ("Landlord"
 * rather than "Party 1") and, optionally, the order they sign in by default. The Send page, the
 * signer's page, the invitation and the certificate show the names; a send takes the steps unless
 * its sender changes them. Keyed by the saved roles, so it starts again from what the server has.
 */
export function TemplateRoles({ template }: { template: TemplateDetail }) {
  const roles = template.roles
  const [draft, setDraft] = useState<RolesDraft>(() => draftOfRoles(roles, template.role_names))
  const [sent, setSent] = useState<TemplateRoleEntry[]>([])
  const save = useSaveTemplateRoles()
  const toast = useToast()

  if (roles.length === 0) {
    return (
      <Card title="Roles" description="Place and save fields first; then name the roles they belong to (such as Landlord and Tenant).">
        {null}
      </Card>
    )
  }

  const refusal = save.error instanceof ApiError ? save.error : null
  const control = refusal ? roleControlFor(refusal.field, sent) : null
  const errorFor = (name: RoleControl) => (refusal && control === name ? roleErrorText(refusal) : undefined)
  const several = roles.length > 1
  const dirty = rolesChanged(roles, draft, template.role_names)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const body = rolesForSave(roles, { ...draft, ordered: draft.ordered && several })
    setSent(body)
    save.mutate({ id: template.id, roles: body }, { onSuccess: () => toast({ title: 'Roles saved', tone: 'success' }) })
  }

  return (
    <Card
      title="Roles"
      description="Name each party so senders and signers see who is who (left blank: “Party 1”, “Party 2” and so on). Documents already sent keep the names they were sent with."
    >
      <form onSubmit={submit} noValidate className="flex flex-col gap-3">
        {several && (
          <Switch label="Roles sign one after another by default" checked={draft.ordered} onCheckedChange={(ordered) => setDraft((d) => ({ ...d, ordered }))} />
        )}
        <ul className="flex flex-col gap-3">
          {roles.map((role) => (
            <li key={role} className="flex flex-wrap items-start gap-3">
              <span
                aria-hidden="true"
                className="mt-9 size-4 shrink-0 rounded-full border-2"
                style={{ borderColor: roleColour(role).border, background: roleColour(role).fill }}
              />
              <Field label={`${partyLabel(role)} name`} error={errorFor(`${role}.name`)} className="min-w-48 flex-1">
                <Input
                  autoComplete="off"
                  maxLength={100}
                  placeholder={partyLabel(role)}
                  value={draft.names[role] ?? ''}
                  onChange={(e) => setDraft((d) => ({ ...d, names: { ...d.names, [role]: e.target.value } }))}
                />
              </Field>
              {draft.ordered && several && (
                <Field label={`${partyLabel(role)} step`} error={errorFor(`${role}.order`)} className="w-32">
                  <Input
                    type="number"
                    inputMode="numeric"
                    min={1}
                    max={MAX_STEP}
                    value={draft.steps[role] ?? ''}
                    onChange={(e) => setDraft((d) => ({ ...d, steps: { ...d.steps, [role]: e.target.value } }))}
                  />
                </Field>
              )}
            </li>
          ))}
        </ul>
        {draft.ordered && several && <p className="text-sm text-muted">Roles with the same step sign at the same time. A sender can change the steps.</p>}
        {save.error && control === null && <ErrorMessage title="The roles were not saved" error={save.error} />}
        <div>
          <Button type="submit" variant="secondary" loading={save.isPending} disabled={!dirty}>
            Save roles
          </Button>
        </div>
      </form>
    </Card>
  )
}

/** A refusal in people's words: the server's texts name the API's fields ("roles[1].name: …"). */
function roleErrorText(error: ApiError): string {
  if (error.code === 'invalid_request' && /already the name/.test(error.message)) return 'Another role already has this name'
  if (error.code === 'invalid_request' && error.field?.endsWith('/name')) return 'Enter a name'
  return peopleTextFor(error.code, error.field, error.message)
}

/** The card's React key: it starts again from the server's roles whenever a save (of fields or roles) changes them. */
export const templateRolesKey = (template: TemplateDetail): string => `${template.roles.join(',')}|${JSON.stringify(template.role_names ?? [])}`

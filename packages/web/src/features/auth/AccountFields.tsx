import { useState } from 'react'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import type { PlacedError } from '../../lib/people-text.ts'
import { PASSWORD_HINT } from './forms.ts'

export interface AccountForm {
  name: string
  email: string
  password: string
  workspace_name: string
}

type SetField = (key: keyof AccountForm) => (event: { target: { value: string } }) => void

/** The controls a refusal of a new account can point at (the body's names). */
export const ACCOUNT_CONTROLS = ['name', 'email', 'password', 'workspace_name'] as const satisfies readonly (keyof AccountForm)[]

/** The state of a new account's form (sign-up, first set-up): the values and an onChange per field. */
export function useAccountForm(): { form: AccountForm; set: SetField } {
  const [form, setForm] = useState<AccountForm>({ name: '', email: '', password: '', workspace_name: '' })
  return { form, set: (key) => (event) => setForm({ ...form, [key]: event.target.value }) }
}

interface AccountFieldsProps {
  form: AccountForm
  set: SetField
  errors: PlacedError<keyof AccountForm>
  emailLabel: string
  workspaceHint: string
}

/** Name, e-mail, password and first workspace of a new account; the labels that differ are passed in. */
export function AccountFields({ form, set, errors, emailLabel, workspaceHint }: AccountFieldsProps) {
  return (
    <>
      <Field label="Your name" error={errors.under('name')} required>
        <Input autoComplete="name" value={form.name} onChange={set('name')} />
      </Field>
      <Field label={emailLabel} error={errors.under('email')} required>
        <Input type="email" autoComplete="email" value={form.email} onChange={set('email')} />
      </Field>
      <Field label="Password" hint={PASSWORD_HINT} error={errors.under('password')} required>
        <Input type="password" autoComplete="new-password" value={form.password} onChange={set('password')} />
      </Field>
      <Field label="Workspace name" hint={workspaceHint} error={errors.under('workspace_name')} required>
        <Input autoComplete="organization" value={form.workspace_name} onChange={set('workspace_name')} />
      </Field>
    </>
  )
}

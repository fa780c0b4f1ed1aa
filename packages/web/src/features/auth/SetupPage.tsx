import { useMutation } from '@tanstack/react-query'
import { getRouteApi } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { authApi, PASSWORD_HINT } from './auth-api.ts'
import { useEnterApp } from './use-session-start.ts'

const route = getRouteApi('/public/setup')

/** The one-time link `npm start` prints on a fresh instance: creates the instance operator's account. */
export function SetupPage() {
  const { token } = route.useSearch()
  const enterApp = useEnterApp()
  const [form, setForm] = useState({ name: '', email: '', password: '', workspace_name: '' })
  const set = (key: keyof typeof form) => (event: { target: { value: string } }) => setForm({ ...form, [key]: event.target.value })
  const setUp = useMutation({ mutationFn: authApi.setUp, onSuccess: (me) => enterApp(me) })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setUp.mutate({ token, ...form })
  }
  return (
    <>
      <AuthHeading title="Set up Signet">Create the operator account of this instance. This link works once.</AuthHeading>
      {!token ? (
        <ErrorMessage error="This page needs the setup link that `npm start` printed on the server's first start." />
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
          <Field label="Your name" required>
            <Input autoComplete="name" value={form.name} onChange={set('name')} />
          </Field>
          <Field label="E-mail" required>
            <Input type="email" autoComplete="email" value={form.email} onChange={set('email')} />
          </Field>
          <Field label="Password" hint={PASSWORD_HINT} required>
            <Input type="password" autoComplete="new-password" value={form.password} onChange={set('password')} />
          </Field>
          <Field label="Workspace name" hint="Your own workspace; operators also see every other one." required>
            <Input autoComplete="organization" value={form.workspace_name} onChange={set('workspace_name')} />
          </Field>
          {setUp.error && <ErrorMessage error={setUp.error} />}
          <Button type="submit" loading={setUp.isPending}>
            Create operator account
          </Button>
        </form>
      )}
    </>
  )
}

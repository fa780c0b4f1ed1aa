import { useMutation } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { authApi, PASSWORD_HINT } from './auth-api.ts'

export function SignUpPage() {
  const [form, setForm] = useState({ name: '', email: '', password: '', workspace_name: '' })
  const set = (key: keyof typeof form) => (event: { target: { value: string } }) => setForm({ ...form, [key]: event.target.value })
  const signUp = useMutation({ mutationFn: authApi.signUp })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    signUp.mutate(form)
  }
  if (signUp.isSuccess) {
    return (
      <>
        <AuthHeading title="Check your inbox" />
        <p role="status" className="text-sm">
          {signUp.data.message}
        </p>
        <p className="mt-3 text-sm text-muted">
          We sent a link to <strong className="text-ink">{form.email}</strong>. Open it to verify your e-mail and enter your workspace.
        </p>
      </>
    )
  }
  return (
    <>
      <AuthHeading title="Create your account">Send documents for signature in minutes. The Free plan needs no card.</AuthHeading>
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <Field label="Your name" required>
          <Input autoComplete="name" value={form.name} onChange={set('name')} />
        </Field>
        <Field label="Work e-mail" required>
          <Input type="email" autoComplete="email" value={form.email} onChange={set('email')} />
        </Field>
        <Field label="Password" hint={PASSWORD_HINT} required>
          <Input type="password" autoComplete="new-password" value={form.password} onChange={set('password')} />
        </Field>
        <Field label="Workspace name" hint="Your company or team: the name your signers see." required>
          <Input autoComplete="organization" value={form.workspace_name} onChange={set('workspace_name')} />
        </Field>
        {signUp.error && <ErrorMessage error={signUp.error} />}
        <Button type="submit" loading={signUp.isPending}>
          Create account
        </Button>
      </form>
      <p className="mt-6 text-sm">
        Already have an account?{' '}
        <Link to="/login" className="font-medium text-brand-700 underline">
          Log in
        </Link>
      </p>
    </>
  )
}

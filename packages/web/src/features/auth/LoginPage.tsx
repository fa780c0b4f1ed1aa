import { useMutation } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { authApi } from './auth-api.ts'
import { useEnterApp } from './use-session-start.ts'

const route = getRouteApi('/public/login')

export function LoginPage() {
  const { next } = route.useSearch()
  const enterApp = useEnterApp()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const login = useMutation({ mutationFn: authApi.logIn, onSuccess: (me) => enterApp(me, next) })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    login.mutate({ email, password })
  }
  return (
    <>
      <AuthHeading title="Log in">Welcome back to Signet.</AuthHeading>
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <Field label="E-mail" required>
          <Input type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Password" required>
          <Input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        {login.error && <ErrorMessage error={login.error} />}
        <Button type="submit" loading={login.isPending}>
          Log in
        </Button>
      </form>
      <div className="mt-6 flex flex-wrap justify-between gap-2 text-sm">
        <Link to="/forgot-password" className="font-medium text-brand-700 underline">
          Forgot your password?
        </Link>
        <Link to="/signup" className="font-medium text-brand-700 underline">
          Create an account
        </Link>
      </div>
    </>
  )
}

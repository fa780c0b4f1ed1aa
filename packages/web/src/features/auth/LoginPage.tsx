import { getRouteApi, Link } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { passkeyErrorText, passkeysSupported } from '../../lib/passkeys.ts'
import { placeError } from '../../lib/people-text.ts'
import { appPathOf } from '../../lib/search.ts'
import { needsSecondStep, useLogIn, usePasskeySignIn, type SecondStep } from './queries.ts'
import { SecondStepForm } from './SecondStepForm.tsx'

const route = getRouteApi('/public/login')

export function LoginPage() {
  const { next } = route.useSearch()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [secondStep, setSecondStep] = useState<SecondStep | null>(null)
  const login = useLogIn(next)
  const errors = placeError(login.error, ['email', 'password'])
  const submit = (event: FormEvent) => {
    event.preventDefault()
    login.mutate(
      { email, password },
      {
        onSuccess: (answer) => {
          if (!needsSecondStep(answer)) return
          setPassword('')
          setSecondStep(answer)
        },
      },
    )
  }
  if (secondStep) {
    return (
      <SecondStepForm
        step={secondStep}
        next={next}
        onRestart={() => {
          login.reset()
          setSecondStep(null)
        }}
      />
    )
  }
  return (
    <>
      <AuthHeading title="Log in">
        {appPathOf(next)?.startsWith('/oauth/consent/') ? 'An app asks to use your Signet workspace. Log in to decide.' : 'Welcome back to Signet.'}
      </AuthHeading>
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <Field label="E-mail" error={errors.under('email')} required>
          <Input type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Password" error={errors.under('password')} required>
          <Input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        {errors.above && <ErrorMessage error={errors.above} />}
        <Button type="submit" loading={login.isPending}>
          Log in
        </Button>
      </form>
      {passkeysSupported() && <PasskeySignIn next={next} />}
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

/** Signing in with a passkey alone: the passkey names the account and proves two factors on the device. */
function PasskeySignIn({ next }: { next: string | undefined }) {
  const signIn = usePasskeySignIn(next)
  return (
    <div className="mt-5 flex flex-col gap-3">
      <div className="flex items-center gap-3 text-xs text-muted" aria-hidden="true">
        <span className="h-px flex-1 bg-line" />
        or
        <span className="h-px flex-1 bg-line" />
      </div>
      {signIn.error && <ErrorMessage error={passkeyErrorText(signIn.error)} />}
      <Button variant="secondary" loading={signIn.isPending} onClick={() => signIn.mutate()}>
        Sign in with a passkey
      </Button>
    </div>
  )
}

import { getRouteApi, Link, useNavigate } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { placeError } from '../../lib/people-text.ts'
import { PASSWORD_HINT } from './forms.ts'
import { needsSecondStep, useResetPassword, type SecondStep } from './queries.ts'
import { SecondStepForm } from './SecondStepForm.tsx'

const route = getRouteApi('/public/reset-password')

export function ResetPasswordPage() {
  const { token } = route.useSearch()
  const navigate = useNavigate()
  const [secondStep, setSecondStep] = useState<SecondStep | null>(null)
  const [password, setPassword] = useState('')
  const [repeat, setRepeat] = useState('')
  const [mismatch, setMismatch] = useState<string | null>(null)
  const reset = useResetPassword()
  const errors = placeError(reset.error, ['password'])
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (password !== repeat) return setMismatch('The two passwords differ.')
    setMismatch(null)
    reset.mutate(
      { token, password },
      {
        onSuccess: (answer) => {
          if (!needsSecondStep(answer)) return
          setPassword('')
          setRepeat('')
          setSecondStep(answer)
        },
      },
    )
  }
  if (secondStep) {
    // The password is changed; a reset link does not skip the account's second step.
    return (
      <SecondStepForm
        step={secondStep}
        intro="Your new password is set. Your account also asks for its second step before you are signed in."
        onRestart={() => void navigate({ to: '/login' })}
        restartLabel="Log in with your new password instead"
      />
    )
  }
  return (
    <>
      <AuthHeading title="Choose a new password">Every other session of your account will be signed out.</AuthHeading>
      {!token ? (
        <ErrorMessage error="This link has no reset token. Open the link from the e-mail exactly as it was sent, or ask for a new one." />
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
          <Field label="New password" hint={PASSWORD_HINT} error={errors.under('password')} required>
            <Input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
          </Field>
          <Field label="New password again" error={mismatch} required>
            <Input type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)} />
          </Field>
          {errors.above && <ErrorMessage error={errors.above} />}
          <Button type="submit" loading={reset.isPending}>
            Set password and log in
          </Button>
        </form>
      )}
      <p className="mt-6 text-sm">
        <Link to="/forgot-password" className="font-medium text-brand-700 underline">
          Ask for a new link
        </Link>
      </p>
    </>
  )
}

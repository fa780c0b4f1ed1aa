import { Link } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { placeError } from '../../lib/people-text.ts'
import { useForgotPassword } from './queries.ts'

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('')
  const request = useForgotPassword()
  const errors = placeError(request.error, ['email'])
  const submit = (event: FormEvent) => {
    event.preventDefault()
    request.mutate(email)
  }
  return (
    <>
      <AuthHeading title="Forgot your password?">We will e-mail you a link to choose a new one.</AuthHeading>
      {request.isSuccess ? (
        <p role="status" className="text-sm">
          {request.data.message}
        </p>
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
          <Field label="E-mail" error={errors.under('email')} required>
            <Input type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
          </Field>
          {errors.above && <ErrorMessage error={errors.above} />}
          <Button type="submit" loading={request.isPending}>
            Send the link
          </Button>
        </form>
      )}
      <p className="mt-6 text-sm">
        <Link to="/login" className="font-medium text-brand-700 underline">
          Back to log in
        </Link>
      </p>
    </>
  )
}

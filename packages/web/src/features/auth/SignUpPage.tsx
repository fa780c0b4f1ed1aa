import { Link } from '@tanstack/react-router'
import type { FormEvent } from 'react'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { ACCOUNT_CONTROLS, AccountFields, useAccountForm } from './AccountFields.tsx'
import { placeError } from '../../lib/people-text.ts'
import { useSignUp } from './queries.ts'

export function SignUpPage() {
  const { form, set } = useAccountForm()
  const signUp = useSignUp()
  const errors = placeError(signUp.error, ACCOUNT_CONTROLS)
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
        <AccountFields form={form} set={set} errors={errors} emailLabel="Work e-mail" workspaceHint="Your company or team: the name your signers see." />
        {errors.above && <ErrorMessage error={errors.above} />}
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

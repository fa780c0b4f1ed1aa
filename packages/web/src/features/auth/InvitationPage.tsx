import { useQuery } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { meQuery } from '../../auth/session.ts'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { Loading } from '../../components/Spinner.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { placeError } from '../../lib/people-text.ts'
import { PASSWORD_HINT } from './forms.ts'
import { invitationQuery, needsSecondStep, useAcceptInvitation, useJoinWithInvitation, type Invitation, type SecondStep } from './queries.ts'
import { SecondStepForm } from './SecondStepForm.tsx'

const route = getRouteApi('/public/invite/$token')

/** The link from an invitation mail: join the workspace with a new account, or accept it when signed in. */
export function InvitationPage() {
  const { token } = route.useParams()
  const invitation = useQuery(invitationQuery(token))
  const me = useQuery(meQuery)
  return (
    <>
      <AuthHeading title="Join a workspace" />
      {invitation.isPending || me.isPending ? (
        <Loading label="Opening the invitation…" />
      ) : invitation.isError ? (
        <ErrorMessage error={invitation.error} />
      ) : (
        <>
          <p className="mb-5 text-sm">
            <strong>{invitation.data.inviter_name}</strong> invited <strong>{invitation.data.email}</strong> to{' '}
            <strong>{invitation.data.workspace_name}</strong> as {article(invitation.data.role)} <strong>{invitation.data.role}</strong>.
          </p>
          {me.data ? <AcceptAsSignedIn token={token} email={me.data.user.email} /> : <SignUpWithInvitation token={token} invitation={invitation.data} />}
        </>
      )}
    </>
  )
}

function AcceptAsSignedIn({ token, email }: { token: string; email: string }) {
  const accept = useAcceptInvitation()
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-muted">You are signed in as {email}.</p>
      {accept.error && <ErrorMessage error={accept.error} />}
      <Button loading={accept.isPending} onClick={() => accept.mutate(token)}>
        Accept and open the workspace
      </Button>
    </div>
  )
}

function SignUpWithInvitation({ token, invitation }: { token: string; invitation: Invitation }) {
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const [secondStep, setSecondStep] = useState<SecondStep | null>(null)
  const join = useJoinWithInvitation()
  const errors = placeError(join.error, ['email', 'name', 'password'])
  // An account that already existed with a second step (its password was typed here) finishes signing in with it.
  if (secondStep) return <SecondStepForm step={secondStep} onRestart={() => setSecondStep(null)} restartLabel="Back to the invitation" embedded />
  const submit = (event: FormEvent) => {
    event.preventDefault()
    join.mutate(
      { token, email: invitation.email, name, password },
      {
        onSuccess: (answer) => {
          if (needsSecondStep(answer)) setSecondStep(answer)
        },
      },
    )
  }
  return (
    <>
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <Field label="E-mail" error={errors.under('email')}>
          <Input type="email" value={invitation.email} readOnly autoComplete="email" />
        </Field>
        <Field label="Your name" error={errors.under('name')} required>
          <Input autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Password" hint={PASSWORD_HINT} error={errors.under('password')} required>
          <Input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        {errors.above && <ErrorMessage error={errors.above} />}
        <Button type="submit" loading={join.isPending}>
          Create account and join
        </Button>
      </form>
      <p className="mt-6 text-sm">
        Already have an account?{' '}
        <Link to="/login" search={{ next: `/invite/${token}` }} className="font-medium text-brand-700 underline">
          Log in to accept
        </Link>
      </p>
    </>
  )
}

function article(role: string): string {
  return /^[aeiou]/.test(role) ? 'an' : 'a'
}

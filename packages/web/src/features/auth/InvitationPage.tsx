import { useMutation, useQuery } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { meQuery } from '../../auth/session.ts'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { Loading } from '../../components/Spinner.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { authApi, needsSecondStep, PASSWORD_HINT, type Invitation, type SecondStep } from './auth-api.ts'
import { SecondStepForm } from './SecondStepForm.tsx'
import { useEnterApp } from './use-session-start.ts'

const route = getRouteApi('/public/invite/$token')

/** The link from an invitation mail: join the workspace with a new account, or accept it when signed in. */
export function InvitationPage() {
  const { token } = route.useParams()
  const invitation = useQuery({ queryKey: ['invitation', token], queryFn: () => authApi.invitation(token), retry: false })
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
  const enterApp = useEnterApp()
  const accept = useMutation({ mutationFn: () => authApi.acceptInvitation(token), onSuccess: (me) => enterApp(me) })
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-muted">You are signed in as {email}.</p>
      {accept.error && <ErrorMessage error={accept.error} />}
      <Button loading={accept.isPending} onClick={() => accept.mutate()}>
        Accept and open the workspace
      </Button>
    </div>
  )
}

function SignUpWithInvitation({ token, invitation }: { token: string; invitation: Invitation }) {
  const enterApp = useEnterApp()
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const [secondStep, setSecondStep] = useState<SecondStep | null>(null)
  // The invitation mail proved the address: the account is created verified, so log straight in.
  const join = useMutation({
    mutationFn: async () => {
      await authApi.signUp({ email: invitation.email, name, password, invitation_token: token })
      return authApi.logIn({ email: invitation.email, password })
    },
    onSuccess: async (answer) => {
      if (!needsSecondStep(answer)) return enterApp(answer)
      setSecondStep(answer)
    },
  })
  // An account that already existed with a second step (its password was typed here) finishes signing in with it.
  if (secondStep)
    return <SecondStepForm step={secondStep} onSignedIn={enterApp} onRestart={() => setSecondStep(null)} restartLabel="Back to the invitation" embedded />
  const submit = (event: FormEvent) => {
    event.preventDefault()
    join.mutate()
  }
  return (
    <>
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <Field label="E-mail">
          <Input type="email" value={invitation.email} readOnly autoComplete="email" />
        </Field>
        <Field label="Your name" required>
          <Input autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Password" hint={PASSWORD_HINT} required>
          <Input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        {join.error && <ErrorMessage error={join.error} />}
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

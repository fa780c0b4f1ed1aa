import { useQuery } from '@tanstack/react-query'
import type { Me } from '../../auth/session.ts'
import { useSignOut } from '../../auth/use-sign-out.ts'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { PasskeysCard } from './PasskeysCard.tsx'
import { twoFactorQuery, type TwoFactorStatus } from './queries.ts'
import { TotpCard } from './TotpCard.tsx'

export type WorkspaceGate = { state: 'open' } | { state: 'checking' } | { state: 'closed'; status: TwoFactorStatus }

/**
 * Whether the selected workspace lets this session in: one that requires a second step answers
 * 403 to a session that has not proved one, so the app shows the gate instead of broken pages.
 */
export function useWorkspaceGate(me: Me): WorkspaceGate {
  const required = me.workspace?.require_two_factor === true
  const status = useQuery({ ...twoFactorQuery, enabled: required })
  if (!required) return { state: 'open' }
  if (status.isPending) return { state: 'checking' }
  // Without the status, the pages show the server's own words.
  if (status.isError || status.data.this_session.second_factor) return { state: 'open' }
  return { state: 'closed', status: status.data }
}

/** "<workspace> requires a second sign-in step": set one up here (the workspace opens at once), or sign in again with it. */
export function TwoFactorGate({ workspace, status }: { workspace: string; status: TwoFactorStatus }) {
  return (
    <>
      <PageHeader
        title={`${workspace} requires a second sign-in step`}
        description="An owner of this workspace asks everyone to confirm each sign-in with an authenticator app or a passkey, to protect its documents. Your account pages stay open, and other workspaces are in the workspace menu."
      />
      {status.enabled ? (
        <SignInAgain />
      ) : (
        <div className="flex flex-col gap-5">
          <p className="text-sm">Set up one of these now. The workspace opens as soon as it is on: you stay signed in.</p>
          <TotpCard status={status} />
          <PasskeysCard status={status} />
        </div>
      )}
    </>
  )
}

/** The account has a second step, but this session signed in before it was asked for. */
function SignInAgain() {
  const signOut = useSignOut()
  return (
    <Card title="Sign in again with your second step">
      <p className="text-sm">This session started without your authenticator app or passkey. Sign out, then sign in with your password and your second step.</p>
      <Button className="mt-4" onClick={() => void signOut()}>
        Sign out and sign in again
      </Button>
    </Card>
  )
}

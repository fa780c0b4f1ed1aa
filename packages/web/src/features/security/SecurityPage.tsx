import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { Badge } from '../../components/Badge.tsx'
import { Card } from '../../components/Card.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { PasskeysCard } from './PasskeysCard.tsx'
import { RecoveryCodesCard } from './RecoveryCodesCard.tsx'
import { twoFactorQuery, type TwoFactorStatus } from './queries.ts'
import { SecurityLogCard } from './SecurityLogCard.tsx'
import { TotpCard } from './TotpCard.tsx'

/** Account → Security: the second sign-in step (authenticator app, passkeys), recovery codes and the security log. */
export function SecurityPage() {
  const status = useQuery(twoFactorQuery)
  return (
    <>
      <PageHeader
        title="Security"
        description={
          <>
            How you sign in: a second step after your password, passkeys, recovery codes. Your profile, password and sessions are under{' '}
            <Link to="/account" className="font-medium text-brand-700 underline">
              Account
            </Link>
            .
          </>
        }
      />
      <QueryView query={status} loadingLabel="Loading your sign-in settings…">
        {(data) => (
          <div className="flex flex-col gap-5">
            <SummaryCard status={data} />
            <TotpCard status={data} />
            <PasskeysCard status={data} />
            <RecoveryCodesCard status={data} />
            <SecurityLogCard />
          </div>
        )}
      </QueryView>
    </>
  )
}

function SummaryCard({ status }: { status: TwoFactorStatus }) {
  const required = status.required_by.map((workspace) => workspace.name).join(', ')
  return (
    <Card title="Two-factor sign-in" actions={status.enabled ? <Badge tone="success">On</Badge> : <Badge tone="neutral">Off</Badge>}>
      <p className="text-sm">
        {status.enabled
          ? 'After your password, you confirm each sign-in with your authenticator app or a passkey; a passkey can also sign you in on its own.'
          : 'Add a second step below, so that your password alone cannot open your account and its documents.'}
      </p>
      {required && (
        <p className={status.enabled ? 'mt-2 text-sm text-muted' : 'mt-2 text-sm font-medium text-red-800'}>
          {status.enabled ? `Required by ${required}.` : `Required by ${required}: set up a second step to open it.`}
        </p>
      )}
    </Card>
  )
}

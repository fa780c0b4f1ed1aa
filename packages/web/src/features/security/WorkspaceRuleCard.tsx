import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { Me } from '../../auth/session.ts'
import { Card } from '../../components/Card.tsx'
import { ConfirmDialog } from '../../components/Dialog.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { Switch } from '../../components/Switch.tsx'
import { useToast } from '../../components/Toast.tsx'
import { twoFactorQuery, useSetWorkspaceRule, workspaceRuleQuery, type WorkspaceRule } from './queries.ts'

/**
 * Settings → Members: an owner requires a second sign-in step of every member (owners and
 * admins see who has none yet; the server mails everyone about a change).
 */
export function WorkspaceRuleCard({ workspace, abilities }: { workspace: string; abilities: Me['abilities'] }) {
  const rule = useQuery(workspaceRuleQuery)
  return (
    <Card
      title="Two-factor sign-in"
      description="Require everyone who signs in to this workspace to confirm it with an authenticator app or a passkey. API keys are not affected."
    >
      <QueryView query={rule} loadingLabel="Loading the sign-in rule…">
        {(data) => <RuleControls rule={data} workspace={workspace} abilities={abilities} />}
      </QueryView>
    </Card>
  )
}

function RuleControls({ rule, workspace, abilities }: { rule: WorkspaceRule; workspace: string; abilities: Me['abilities'] }) {
  const mayChange = abilities.require_two_factor
  const toast = useToast()
  const setRule = useSetWorkspaceRule()
  const own = useQuery({ ...twoFactorQuery, enabled: mayChange })
  const [pending, setPending] = useState<boolean | null>(null)
  const without = rule.members_without_two_factor
  const ownerWithoutFactor = mayChange && own.data?.enabled === false
  return (
    <div className="flex flex-col gap-4">
      <Switch checked={rule.require_two_factor} onCheckedChange={setPending} disabled={!mayChange} label="Require a second sign-in step for every member" />
      {!mayChange && <p className="text-sm text-muted">Only owners can change this.</p>}
      {ownerWithoutFactor && !rule.require_two_factor && (
        <p className="text-sm">
          The rule applies to you too: first{' '}
          <Link to="/account/security" className="font-medium text-brand-700 underline">
            set up your own second step
          </Link>
          .
        </p>
      )}
      {abilities.manage_members &&
        (without.length === 0 ? (
          <p className="text-sm text-muted">Every member has a second step set up.</p>
        ) : (
          <div>
            <h3 className="text-sm font-semibold">Members without a second step ({without.length})</h3>
            <p className="text-sm text-muted">
              {rule.require_two_factor
                ? 'They see only their account pages here until they set one up.'
                : 'With the rule on, they would see only their account pages here until they set one up.'}
            </p>
            <ul className="mt-2 divide-y divide-gray-200 rounded-md border border-line text-sm">
              {without.map((member) => (
                <li key={member.user_id} className="flex flex-wrap justify-between gap-x-3 px-3 py-2">
                  <span className="font-medium">{member.name}</span>
                  <span className="[overflow-wrap:anywhere] text-muted">{member.email}</span>
                </li>
              ))}
            </ul>
          </div>
        ))}
      <ConfirmDialog
        open={pending !== null}
        onOpenChange={(open) => !open && setPending(null)}
        title={pending ? `Require a second sign-in step in ${workspace}?` : `Stop requiring a second sign-in step in ${workspace}?`}
        description={
          pending
            ? `Everyone must confirm each sign-in with an authenticator app or a passkey. ${
                without.length > 0
                  ? `${without.length} member${without.length === 1 ? '' : 's'} without one will see only their account pages until they set one up. `
                  : ''
              }Every member is e-mailed about the change.`
            : 'Members can again sign in with their password alone (those who set up a second step keep using it). Every member is e-mailed about the change.'
        }
        confirmLabel={pending ? 'Require it' : 'Stop requiring it'}
        destructive={pending === false}
        onConfirm={async () => {
          if (pending === null) return
          const next = await setRule.mutateAsync(pending)
          toast({ title: next.require_two_factor ? 'A second sign-in step is now required' : 'A second sign-in step is no longer required', tone: 'success' })
        }}
      />
    </div>
  )
}

import { useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useMe, type Me, type WorkspaceRole } from '../../auth/session.ts'
import { Badge } from '../../components/Badge.tsx'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { ConfirmDialog } from '../../components/Dialog.tsx'
import { EmptyState } from '../../components/EmptyState.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { Select } from '../../components/Select.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { useToast } from '../../components/Toast.tsx'
import { formatDate } from '../../lib/format.ts'
import { fieldErrorText } from '../../lib/people-text.ts'
import { WORKSPACE_ROLE_LABELS } from '../../lib/vocabulary.ts'
import { WorkspaceRuleCard, workspaceRuleQuery } from '../security/index.ts'
import { membersQuery, useInviteMember, useRemoveMember, useRevokeInvitation, useSetMemberRole, type Member, type PendingInvitation } from './queries.ts'

export function MembersPage() {
  const me = useMe()
  const manager = me.abilities.manage_members
  const members = useQuery(membersQuery)
  // Managers see who has no second sign-in step yet (the workspace's rule is on this page too).
  const rule = useQuery({ ...workspaceRuleQuery, enabled: manager })
  const withoutSecondStep = new Set(rule.data?.members_without_two_factor.map((member) => member.user_id))
  return (
    <>
      <PageHeader title="Members" description="Members send and read documents; owners and admins also manage keys, webhooks, billing and members." />
      <div className="flex flex-col gap-5">
        {manager && <InviteForm ownerMayInvite={me.abilities.manage_owners} />}
        <Card title="People in this workspace">
          <QueryView query={members} loadingLabel="Loading members…">
            {(data) => <MemberTable members={data.members} abilities={me.abilities} myId={me.user.id} withoutSecondStep={withoutSecondStep} />}
          </QueryView>
        </Card>
        {me.workspace && <WorkspaceRuleCard workspace={me.workspace.name} abilities={me.abilities} />}
        {manager && (
          <Card title="Pending invitations">
            <QueryView query={members} loadingLabel="Loading invitations…">
              {(data) => <InvitationTable invitations={data.invitations} />}
            </QueryView>
          </Card>
        )}
      </div>
    </>
  )
}

function InviteForm({ ownerMayInvite }: { ownerMayInvite: boolean }) {
  const toast = useToast()
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<WorkspaceRole>('member')
  const invite = useInviteMember()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    invite.mutate(
      { email, role },
      {
        onSuccess: (invitation) => {
          setEmail('')
          toast({ title: `Invitation sent to ${invitation.email}`, tone: 'success' })
        },
      },
    )
  }
  const roles = (Object.keys(WORKSPACE_ROLE_LABELS) as WorkspaceRole[]).filter((value) => value !== 'owner' || ownerMayInvite)
  return (
    <Card title="Invite someone" description="They get an e-mail with a link that signs them up, or adds the workspace to their account.">
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-[1fr_12rem_auto] sm:items-end" noValidate>
        <Field label="E-mail" error={fieldErrorText(invite.error)} required>
          <Input type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Role">
          <Select
            value={role}
            onValueChange={(value) => setRole(value as WorkspaceRole)}
            options={roles.map((value) => ({ value, label: WORKSPACE_ROLE_LABELS[value] }))}
          />
        </Field>
        <Button type="submit" loading={invite.isPending} className="sm:mb-0">
          Send invitation
        </Button>
      </form>
    </Card>
  )
}

interface MemberTableProps {
  members: Member[]
  abilities: Me['abilities']
  myId: string
  /** Members with neither an authenticator app nor a passkey (known to managers). */
  withoutSecondStep: Set<string>
}

/**
 * What the user may do to a member's row, as the server would answer: managers change and remove
 * people, only owners touch owners, and the last owner keeps their role (whoever asks).
 */
function mayChange(member: Member, members: Member[], abilities: Me['abilities']): boolean {
  if (!abilities.manage_members) return false
  if (member.role !== 'owner') return true
  return abilities.manage_owners && members.some((other) => other.role === 'owner' && other.user_id !== member.user_id)
}

function MemberTable({ members, abilities, myId, withoutSecondStep }: MemberTableProps) {
  const manager = abilities.manage_members
  const toast = useToast()
  const [removing, setRemoving] = useState<Member | null>(null)
  const setRole = useSetMemberRole()
  const remove = useRemoveMember()
  if (members.length === 0) return <EmptyState title="No members" />
  return (
    <>
      {setRole.error && <ErrorMessage className="mb-3" error={setRole.error} />}
      <Table caption="Members">
        <THead>
          <Tr>
            <Th>Name</Th>
            <Th className="hidden sm:table-cell">E-mail</Th>
            <Th>Role</Th>
            <Th className="hidden md:table-cell">Joined</Th>
            {manager && <ActionsTh />}
          </Tr>
        </THead>
        <TBody>
          {members.map((member) => (
            <Tr key={member.user_id}>
              <Td className="font-medium">
                {member.name}
                {member.user_id === myId && <span className="text-muted"> (you)</span>}
                {withoutSecondStep.has(member.user_id) && (
                  <Badge tone="warning" className="ml-2">
                    No second step
                  </Badge>
                )}
                <span className="block text-xs font-normal [overflow-wrap:anywhere] text-muted sm:hidden">{member.email}</span>
              </Td>
              <Td className="hidden sm:table-cell">{member.email}</Td>
              <Td className="min-w-32">
                {mayChange(member, members, abilities) ? (
                  <Select
                    aria-label={`Role of ${member.name || member.email}`}
                    value={member.role}
                    disabled={setRole.isPending}
                    onValueChange={(role) => setRole.mutate({ userId: member.user_id, role: role as WorkspaceRole })}
                    options={(Object.keys(WORKSPACE_ROLE_LABELS) as WorkspaceRole[]).map((value) => ({
                      value,
                      label: WORKSPACE_ROLE_LABELS[value],
                      disabled: value === 'owner' && !abilities.manage_owners,
                    }))}
                  />
                ) : (
                  WORKSPACE_ROLE_LABELS[member.role]
                )}
              </Td>
              <Td className="hidden whitespace-nowrap md:table-cell">{formatDate(member.joined_at)}</Td>
              {manager && (
                <Td className="text-right">
                  {mayChange(member, members, abilities) && (
                    <Button size="sm" variant="danger-secondary" onClick={() => setRemoving(member)} aria-label={`Remove ${member.name || member.email}`}>
                      Remove
                    </Button>
                  )}
                </Td>
              )}
            </Tr>
          ))}
        </TBody>
      </Table>
      <ConfirmDialog
        open={removing !== null}
        onOpenChange={(open) => !open && setRemoving(null)}
        title={`Remove ${removing?.name || removing?.email || ''}?`}
        description="They lose access to this workspace's documents, templates and settings at once. Their account stays."
        confirmLabel="Remove member"
        destructive
        onConfirm={async () => {
          if (!removing) return
          await remove.mutateAsync(removing.user_id)
          toast({ title: `${removing.email} removed`, tone: 'success' })
        }}
      />
    </>
  )
}

function InvitationTable({ invitations }: { invitations: PendingInvitation[] }) {
  const revoke = useRevokeInvitation()
  if (invitations.length === 0) return <p className="text-sm text-muted">No invitations waiting for an answer.</p>
  return (
    <>
      {revoke.error && <ErrorMessage className="mb-3" error={revoke.error} />}
      <Table caption="Pending invitations">
        <THead>
          <Tr>
            <Th>E-mail</Th>
            <Th>Role</Th>
            <Th className="hidden sm:table-cell">Sent</Th>
            <Th className="hidden sm:table-cell">Expires</Th>
            <ActionsTh />
          </Tr>
        </THead>
        <TBody>
          {invitations.map((invitation) => (
            <Tr key={invitation.id}>
              <Td className="[overflow-wrap:anywhere]">
                {invitation.email}
                <span className="block text-xs text-muted sm:hidden">Expires {formatDate(invitation.expires_at)}</span>
              </Td>
              <Td>{WORKSPACE_ROLE_LABELS[invitation.role]}</Td>
              <Td className="hidden whitespace-nowrap sm:table-cell">{formatDate(invitation.created_at)}</Td>
              <Td className="hidden whitespace-nowrap sm:table-cell">{formatDate(invitation.expires_at)}</Td>
              <Td className="text-right">
                <Button
                  size="sm"
                  variant="danger-secondary"
                  loading={revoke.isPending && revoke.variables === invitation.id}
                  onClick={() => revoke.mutate(invitation.id)}
                  aria-label={`Revoke the invitation of ${invitation.email}`}
                >
                  Revoke
                </Button>
              </Td>
            </Tr>
          ))}
        </TBody>
      </Table>
    </>
  )
}

import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useMe } from '../../auth/session.ts'
import { Badge } from '../../components/Badge.tsx'
import { Button } from '../../components/Button.tsx'
import { ConfirmDialog } from '../../components/Dialog.tsx'
import { EmptyState } from '../../components/EmptyState.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { useToast } from '../../components/Toast.tsx'
import { formatDate } from '../../lib/format.ts'
import { WORKSPACE_ROLE_LABELS } from '../../lib/vocabulary.ts'
import { userListQuery, useUserAction, type OperatorUser } from './queries.ts'
import { SearchBox } from './SearchBox.tsx'

type UserAction = { user: OperatorUser; kind: 'disable' | 'promote' | 'reset-two-factor' }

/** What each confirmed action asks and says. */
const CONFIRM: Record<
  UserAction['kind'],
  { title: (email: string) => string; description: string; label: string; destructive: boolean; done: (email: string) => string }
> = {
  disable: {
    title: (email) => `Disable ${email}?`,
    description: 'Their sessions end and they cannot log in until enabled again. Their workspaces and documents stay.',
    label: 'Disable account',
    destructive: true,
    done: (email) => `${email} disabled`,
  },
  promote: {
    title: (email) => `Make ${email} an operator?`,
    description: 'Operators see every workspace and user of this instance, set plans, grant credits and decide identity checks.',
    label: 'Make operator',
    destructive: false,
    done: (email) => `${email} is now an operator`,
  },
  'reset-two-factor': {
    title: (email) => `Reset the two-factor sign-in of ${email}?`,
    description:
      'Their authenticator app, passkeys and recovery codes are removed and their sessions end; they are e-mailed. They can then sign in with their password alone and set up a new second step. Do this only once you are sure the request comes from them.',
    label: 'Reset two-factor',
    destructive: true,
    done: (email) => `Two-factor sign-in of ${email} reset`,
  },
}

export function UsersTab() {
  const me = useMe()
  const toast = useToast()
  const [search, setSearch] = useState('')
  const [pending, setPending] = useState<UserAction | null>(null)
  const users = useQuery(userListQuery(search))
  // Two mutations: enabling shows its error above the list, a confirmed action in its dialog.
  const enable = useUserAction()
  const act = useUserAction()
  return (
    <>
      <SearchBox label="Search users by e-mail or name" onSearch={setSearch} />
      {enable.error && <ErrorMessage className="mb-3" error={enable.error} />}
      <QueryView query={users} loadingLabel="Loading users…">
        {(data) =>
          data.users.length === 0 ? (
            <EmptyState title={search ? `No user matches “${search}”` : 'No users yet'} />
          ) : (
            <Table caption="Users">
              <THead>
                <Tr>
                  <Th>Name</Th>
                  <Th className="hidden sm:table-cell">E-mail</Th>
                  <Th className="hidden lg:table-cell">Workspaces</Th>
                  <Th>State</Th>
                  <Th className="hidden md:table-cell">Created</Th>
                  <ActionsTh />
                </Tr>
              </THead>
              <TBody>
                {data.users.map((user) => (
                  <Tr key={user.id}>
                    <Td>
                      <span className="font-medium">{user.name}</span>
                      <span className="block text-xs [overflow-wrap:anywhere] text-muted sm:hidden">{user.email}</span>
                    </Td>
                    <Td className="hidden sm:table-cell">{user.email}</Td>
                    <Td className="hidden lg:table-cell">
                      {user.workspaces.length === 0 ? (
                        <span className="text-muted">None</span>
                      ) : (
                        <ul>
                          {user.workspaces.map((workspace) => (
                            <li key={workspace.id}>
                              {workspace.name} <span className="text-muted">· {WORKSPACE_ROLE_LABELS[workspace.role]}</span>
                            </li>
                          ))}
                        </ul>
                      )}
                    </Td>
                    <Td>
                      <span className="flex flex-wrap gap-1">
                        {user.is_operator && <Badge tone="info">Operator</Badge>}
                        {user.disabled && <Badge tone="danger">Disabled</Badge>}
                        {!user.email_verified && <Badge tone="warning">E-mail not confirmed</Badge>}
                        {user.two_factor && <Badge tone="neutral">Two-factor on</Badge>}
                        {!user.is_operator && !user.disabled && user.email_verified && <Badge tone="success">Active</Badge>}
                      </span>
                    </Td>
                    <Td className="hidden whitespace-nowrap md:table-cell">{formatDate(user.created_at)}</Td>
                    <Td className="text-right">
                      <span className="inline-flex flex-wrap justify-end gap-2">
                        {user.disabled ? (
                          <Button
                            size="sm"
                            variant="secondary"
                            loading={enable.isPending && enable.variables.userId === user.id}
                            onClick={() => enable.mutate({ kind: 'enable', userId: user.id })}
                          >
                            Enable
                          </Button>
                        ) : (
                          user.id !== me.user.id && (
                            <Button
                              size="sm"
                              variant="danger-secondary"
                              onClick={() => setPending({ user, kind: 'disable' })}
                              aria-label={`Disable ${user.email}`}
                            >
                              Disable
                            </Button>
                          )
                        )}
                        {!user.is_operator && (
                          <Button
                            size="sm"
                            variant="secondary"
                            onClick={() => setPending({ user, kind: 'promote' })}
                            aria-label={`Make ${user.email} an operator`}
                          >
                            Make operator
                          </Button>
                        )}
                        {user.two_factor && (
                          <Button
                            size="sm"
                            variant="danger-secondary"
                            onClick={() => setPending({ user, kind: 'reset-two-factor' })}
                            aria-label={`Reset the two-factor sign-in of ${user.email}`}
                          >
                            Reset two-factor
                          </Button>
                        )}
                      </span>
                    </Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
          )
        }
      </QueryView>
      <ConfirmDialog
        open={pending !== null}
        onOpenChange={(open) => !open && setPending(null)}
        title={pending ? CONFIRM[pending.kind].title(pending.user.email) : ''}
        description={pending ? CONFIRM[pending.kind].description : ''}
        confirmLabel={pending ? CONFIRM[pending.kind].label : ''}
        destructive={pending ? CONFIRM[pending.kind].destructive : false}
        onConfirm={async () => {
          if (!pending) return
          await act.mutateAsync({ kind: pending.kind, userId: pending.user.id })
          toast({ title: CONFIRM[pending.kind].done(pending.user.email), tone: 'success' })
        }}
      />
    </>
  )
}

import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useMe } from '../../auth/session.ts'
import { Badge } from '../../components/Badge.tsx'
import { Button } from '../../components/Button.tsx'
import { ConfirmDialog } from '../../components/Dialog.tsx'
import { EmptyState } from '../../components/EmptyState.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { formatDate } from '../../lib/format.ts'
import { operatorApi, type OperatorUser } from './operator-api.ts'
import { SearchBox } from './SearchBox.tsx'

type UserAction = { user: OperatorUser; kind: 'disable' | 'promote' }

export function UsersTab() {
  const me = useMe()
  const queryClient = useQueryClient()
  const [search, setSearch] = useState('')
  const [pending, setPending] = useState<UserAction | null>(null)
  const users = useQuery({ queryKey: ['operator', 'users', search], queryFn: () => operatorApi.users({ search }), placeholderData: keepPreviousData })
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['operator', 'users'] })
  const enable = useMutation({ mutationFn: operatorApi.enableUser, onSuccess: refresh })
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
                    <Td>
                      <span className="flex flex-wrap gap-1">
                        {user.is_operator && <Badge tone="info">operator</Badge>}
                        {user.disabled && <Badge tone="danger">disabled</Badge>}
                        {!user.email_verified && <Badge tone="warning">unverified</Badge>}
                        {!user.is_operator && !user.disabled && user.email_verified && <Badge tone="success">active</Badge>}
                      </span>
                    </Td>
                    <Td className="hidden whitespace-nowrap md:table-cell">{formatDate(user.created_at)}</Td>
                    <Td className="text-right">
                      <span className="inline-flex flex-wrap justify-end gap-2">
                        {user.disabled ? (
                          <Button size="sm" variant="secondary" loading={enable.isPending && enable.variables === user.id} onClick={() => enable.mutate(user.id)}>
                            Enable
                          </Button>
                        ) : (
                          user.id !== me.user.id && (
                            <Button size="sm" variant="secondary" onClick={() => setPending({ user, kind: 'disable' })} aria-label={`Disable ${user.email}`}>
                              Disable
                            </Button>
                          )
                        )}
                        {!user.is_operator && (
                          <Button size="sm" variant="secondary" onClick={() => setPending({ user, kind: 'promote' })} aria-label={`Make ${user.email} an operator`}>
                            Make operator
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
        title={pending?.kind === 'disable' ? `Disable ${pending.user.email}?` : `Make ${pending?.user.email ?? ''} an operator?`}
        description={
          pending?.kind === 'disable'
            ? 'Their sessions end and they cannot log in until enabled again. Their workspaces and documents stay.'
            : 'Operators see every workspace and user of this instance, set plans, grant credits and decide identity checks.'
        }
        confirmLabel={pending?.kind === 'disable' ? 'Disable account' : 'Make operator'}
        destructive={pending?.kind === 'disable'}
        onConfirm={async () => {
          if (!pending) return
          await (pending.kind === 'disable' ? operatorApi.disableUser(pending.user.id) : operatorApi.promoteUser(pending.user.id))
          await refresh()
        }}
      />
    </>
  )
}

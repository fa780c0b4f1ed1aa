import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useMe, type Me } from '../../auth/session.ts'
import { Badge } from '../../components/Badge.tsx'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { CopyButton } from '../../components/CopyButton.tsx'
import { ConfirmDialog } from '../../components/Dialog.tsx'
import { EmptyState } from '../../components/EmptyState.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { useToast } from '../../components/Toast.tsx'
import { cn } from '../../lib/cn.ts'
import { formatDateTime } from '../../lib/format.ts'
import { GRANT_ACCESS_LABELS, grantAccessOf } from '../../lib/vocabulary.ts'
import { connectedAppsQuery, useRevokeConnectedApp, type ConnectedApp } from './queries.ts'

/** The address an AI app is given: it finds the login and the consent page from there. */
const mcpAddress = () => `${window.location.origin}/api/mcp`

/** Settings → Connected apps: the apps that connected to this workspace with OAuth, and Revoke. */
export function ConnectedAppsPage() {
  return (
    <>
      <PageHeader
        title="Connected apps"
        description="AI apps that connected to this workspace with OAuth, and what each may do. Revoking one ends its access at once."
      />
      <Apps />
    </>
  )
}

function Apps() {
  const me = useMe()
  const toast = useToast()
  const apps = useQuery(connectedAppsQuery)
  const revoke = useRevokeConnectedApp()
  const [revoking, setRevoking] = useState<ConnectedApp | null>(null)
  return (
    <QueryView query={apps} loadingLabel="Loading connected apps…">
      {(list) =>
        list.length === 0 ? (
          <EmptyState
            title="No connected apps yet"
            description={
              <>
                AI apps connected with OAuth, such as Claude, ChatGPT, Cursor and VS Code, appear here. Give your AI app this address; it asks you to log in and
                choose what the app may do.
              </>
            }
            action={<McpAddress className="justify-center" />}
          />
        ) : (
          <>
            <Card title="Apps">
              <Table caption="Connected apps">
                <THead>
                  <Tr>
                    <Th>App</Th>
                    <Th className="hidden sm:table-cell">Access</Th>
                    <Th className="hidden md:table-cell">Granted by</Th>
                    <Th className="hidden sm:table-cell">Granted</Th>
                    <Th className="hidden sm:table-cell">Last used</Th>
                    <ActionsTh />
                  </Tr>
                </THead>
                <TBody>
                  {list.map((app) => (
                    <Tr key={app.id}>
                      <Td>
                        <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
                          <span className="font-medium wrap-anywhere">{app.client_name}</span>
                          {!app.client_name_verified && <Badge tone="warning">Unverified name</Badge>}
                        </span>
                        <span className="block text-xs text-muted">
                          <span className="sm:hidden">
                            {GRANT_ACCESS_LABELS[grantAccessOf(app.scopes)]}
                            <br />
                          </span>
                          <span className="md:hidden">
                            Granted by {grantorOf(app)}
                            <br />
                          </span>
                          <span className="sm:hidden">
                            Granted {formatDateTime(app.granted_at)}
                            <br />
                            Last used {app.last_used_at ? formatDateTime(app.last_used_at) : 'never'}
                          </span>
                        </span>
                      </Td>
                      <Td className="hidden whitespace-nowrap sm:table-cell">{GRANT_ACCESS_LABELS[grantAccessOf(app.scopes)]}</Td>
                      <Td className="hidden md:table-cell">
                        {app.granted_by ? (
                          <>
                            {app.granted_by.name}
                            <span className="block text-xs text-muted">{app.granted_by.email}</span>
                          </>
                        ) : (
                          'A deleted account'
                        )}
                      </Td>
                      <Td className="hidden whitespace-nowrap sm:table-cell">{formatDateTime(app.granted_at)}</Td>
                      <Td className="hidden whitespace-nowrap sm:table-cell">{app.last_used_at ? formatDateTime(app.last_used_at) : 'Never'}</Td>
                      <Td className="text-right">
                        {mayRevoke(me, app) && (
                          <Button size="sm" variant="danger-secondary" onClick={() => setRevoking(app)} aria-label={`Revoke ${app.client_name}`}>
                            Revoke
                          </Button>
                        )}
                      </Td>
                    </Tr>
                  ))}
                </TBody>
              </Table>
            </Card>
            <Card title="Connect another AI app" className="mt-5">
              <p className="mb-3 text-sm">Give your AI app this address; it asks you to log in and choose what the app may do.</p>
              <McpAddress />
            </Card>
            <ConfirmDialog
              open={revoking !== null}
              onOpenChange={(open) => !open && setRevoking(null)}
              title={`Revoke access for “${revoking?.client_name ?? ''}”?`}
              description="It stops working at once; it can connect again only after someone allows it again."
              confirmLabel="Revoke access"
              destructive
              onConfirm={async () => {
                if (!revoking) return
                await revoke.mutateAsync(revoking.id)
                toast({ title: `Access for “${revoking.client_name}” revoked`, tone: 'success' })
              }}
            />
          </>
        )
      }
    </QueryView>
  )
}

function McpAddress({ className }: { className?: string }) {
  const address = mcpAddress()
  return (
    <div className={cn('flex flex-wrap items-center gap-2', className)}>
      <code className="rounded bg-gray-100 px-2 py-1 text-sm wrap-anywhere">{address}</code>
      <CopyButton value={address} label="Copy address" />
    </div>
  )
}

/** Owners and admins revoke any app; a member, the apps they allowed (the server decides either way). */
function mayRevoke(me: Me, app: ConnectedApp): boolean {
  return me.abilities.manage_connected_apps || app.granted_by?.id === me.user.id
}

function grantorOf(app: ConnectedApp): string {
  return app.granted_by ? app.granted_by.name || app.granted_by.email : 'a deleted account'
}

import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useMe } from '../../auth/session.ts'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { ConfirmDialog, FormDialog } from '../../components/Dialog.tsx'
import { EmptyState } from '../../components/EmptyState.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { Select } from '../../components/Select.tsx'
import { ApiKeyStatusBadge } from '../../components/StatusBadge.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { useToast } from '../../components/Toast.tsx'
import { formatDateTime } from '../../lib/format.ts'
import { fieldErrorText } from '../../lib/people-text.ts'
import { API_KEY_ACCESS_LABELS, apiKeyAccessOf, type ApiKeyAccess } from '../../lib/vocabulary.ts'
import { apiKeysQuery, useCreateApiKey, useRevokeApiKey, type ApiKey, type CreatedApiKey } from './queries.ts'
import { EmbedOriginsCard } from './EmbedOriginsCard.tsx'
import { RequireAbility } from './RequireAbility.tsx'
import { SecretDialog } from './SecretDialog.tsx'

export function ApiKeysPage() {
  const me = useMe()
  const [creating, setCreating] = useState(false)
  return (
    <>
      <PageHeader
        title="Integration and API"
        description="API keys let your systems send documents and read their status through the REST API and the MCP endpoint."
        actions={me.abilities.manage_api_keys && <Button onClick={() => setCreating(true)}>Create key</Button>}
      />
      <RequireAbility ability="manage_api_keys" what="API keys">
        <Keys creating={creating} onCreatingChange={setCreating} />
      </RequireAbility>
      <Card title="Using the API" className="mt-5">
        <p className="text-sm">
          Send the key as <code className="rounded bg-gray-100 px-1">Authorization: Bearer sgn_live_…</code>. The reference is at{' '}
          <a href="/docs" className="font-medium text-brand-700 underline">
            /docs
          </a>{' '}
          and the OpenAPI document at{' '}
          <a href="/api/v1/openapi.json" className="font-medium text-brand-700 underline">
            /api/v1/openapi.json
          </a>
          ; AI agents connect to <code className="rounded bg-gray-100 px-1">{`${window.location.origin}/api/mcp`}</code> with the same key.
        </p>
      </Card>
      <EmbedOriginsCard />
    </>
  )
}

/** The list, and the dialogs of the header's "Create key" (`creating`). */
function Keys({ creating, onCreatingChange }: { creating: boolean; onCreatingChange: (creating: boolean) => void }) {
  const toast = useToast()
  const keys = useQuery(apiKeysQuery)
  const revoke = useRevokeApiKey()
  const [created, setCreated] = useState<CreatedApiKey | null>(null)
  const [revoking, setRevoking] = useState<ApiKey | null>(null)
  return (
    <Card title="API keys">
      <QueryView query={keys} loadingLabel="Loading keys…">
        {({ keys: list }) =>
          list.length === 0 ? (
            <EmptyState
              title="No API keys yet"
              description="Create one for each system that calls Signet, so you can revoke one without touching the others."
            />
          ) : (
            <Table caption="API keys">
              <THead>
                <Tr>
                  <Th>Name</Th>
                  <Th className="hidden sm:table-cell">Key</Th>
                  <Th className="hidden sm:table-cell">Access</Th>
                  <Th className="hidden sm:table-cell">Created</Th>
                  <Th className="hidden sm:table-cell">Last used</Th>
                  <ActionsTh />
                </Tr>
              </THead>
              <TBody>
                {list.map((key) => (
                  <Tr key={key.id} className={key.revoked_at ? 'text-muted' : undefined}>
                    <Td>
                      <span className="font-medium">{key.name ?? 'Unnamed (operator CLI)'}</span>
                      <span className="block text-xs text-muted sm:hidden">
                        <code>{key.prefix}…</code>
                        <br />
                        {API_KEY_ACCESS_LABELS[apiKeyAccessOf(key.scopes)]}
                        <br />
                        Created {formatDateTime(key.created_at)}
                        <br />
                        Last used {key.last_used_at ? formatDateTime(key.last_used_at) : 'never'}
                      </span>
                    </Td>
                    <Td className="hidden sm:table-cell">
                      <code className="whitespace-nowrap">{key.prefix}…</code>
                    </Td>
                    <Td className="hidden whitespace-nowrap sm:table-cell">{API_KEY_ACCESS_LABELS[apiKeyAccessOf(key.scopes)]}</Td>
                    <Td className="hidden whitespace-nowrap sm:table-cell">{formatDateTime(key.created_at)}</Td>
                    <Td className="hidden whitespace-nowrap sm:table-cell">{key.last_used_at ? formatDateTime(key.last_used_at) : 'Never'}</Td>
                    <Td className="text-right">
                      {key.revoked_at ? (
                        <span className="inline-flex flex-col items-end gap-0.5">
                          <ApiKeyStatusBadge status="revoked" />
                          <span className="hidden text-xs whitespace-nowrap sm:inline">{formatDateTime(key.revoked_at)}</span>
                        </span>
                      ) : (
                        <Button size="sm" variant="danger-secondary" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.name ?? key.prefix}`}>
                          Revoke
                        </Button>
                      )}
                    </Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
          )
        }
      </QueryView>

      <CreateKeyDialog
        open={creating}
        onOpenChange={onCreatingChange}
        onCreated={(key) => {
          onCreatingChange(false)
          setCreated(key)
        }}
      />
      <SecretDialog
        secret={created?.api_key ?? null}
        title="Copy your new key"
        description="This is the only time the whole key is shown. Store it in your secret manager now."
        copyLabel="Copy key"
        testId="new-api-key"
        onClose={() => setCreated(null)}
      >
        <p className="text-sm">
          <strong>{created?.name}</strong> · {created && API_KEY_ACCESS_LABELS[apiKeyAccessOf(created.scopes)]}
        </p>
      </SecretDialog>
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && setRevoking(null)}
        title={`Revoke “${revoking?.name ?? revoking?.prefix ?? ''}”?`}
        description="Requests with this key are refused at once. This cannot be undone."
        confirmLabel="Revoke key"
        destructive
        onConfirm={async () => {
          if (!revoking) return
          await revoke.mutateAsync(revoking.id)
          toast({ title: `Key “${revoking.name ?? revoking.prefix}” revoked`, tone: 'success' })
        }}
      />
    </Card>
  )
}

function CreateKeyDialog({ open, onOpenChange, onCreated }: { open: boolean; onOpenChange: (open: boolean) => void; onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('')
  const [access, setAccess] = useState<ApiKeyAccess>('read-write')
  const create = useCreateApiKey()
  return (
    <FormDialog
      open={open}
      onOpenChange={(next) => {
        if (!next) create.reset()
        onOpenChange(next)
      }}
      title="Create an API key"
      formId="create-key"
      submitLabel="Create key"
      pending={create.isPending}
      onSubmit={() =>
        create.mutate(
          { name, access },
          {
            onSuccess: (key) => {
              setName('')
              setAccess('read-write')
              onCreated(key)
            },
          },
        )
      }
    >
      <Field label="Name" hint="Where the key is used, e.g. “CRM production”." error={fieldErrorText(create.error)} required>
        <Input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
      </Field>
      <Field
        className="mt-4"
        label="Access"
        hint="A read-only key reads documents and usage; it cannot send, void or seal documents, or change templates and webhooks."
      >
        <Select
          value={access}
          onValueChange={(value) => setAccess(value as ApiKeyAccess)}
          options={(Object.keys(API_KEY_ACCESS_LABELS) as ApiKeyAccess[]).map((value) => ({ value, label: API_KEY_ACCESS_LABELS[value] }))}
        />
      </Field>
    </FormDialog>
  )
}

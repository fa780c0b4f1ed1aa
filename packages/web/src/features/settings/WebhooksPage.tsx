import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { isApiError } from '../../api/client.ts'
import { useMe } from '../../auth/session.ts'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { ConfirmDialog, FormDialog } from '../../components/Dialog.tsx'
import { EmptyState } from '../../components/EmptyState.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { Pagination } from '../../components/Pagination.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { WebhookDeliveryStatusBadge, WebhookEndpointStatusBadge } from '../../components/StatusBadge.tsx'
import { Switch } from '../../components/Switch.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { useToast } from '../../components/Toast.tsx'
import { formatDateTime } from '../../lib/format.ts'
import { fieldErrorText } from '../../lib/people-text.ts'
import {
  DELIVERY_PAGE_SIZE,
  deliveriesQuery,
  useCreateWebhook,
  useDeleteWebhook,
  useRedeliver,
  useRotateWebhookSecret,
  useSendTestEvent,
  useSetWebhookEnabled,
  webhooksQuery,
  type Delivery,
  type Webhook,
  type WebhookTestResult,
} from './queries.ts'
import { RequireAbility } from './RequireAbility.tsx'
import { SecretDialog } from './SecretDialog.tsx'

export function WebhooksPage() {
  const me = useMe()
  const [adding, setAdding] = useState(false)
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Signet posts a signed event to your endpoints when a signer views, signs or declines a document, and when a document is completed."
        actions={me.abilities.manage_webhooks && <Button onClick={() => setAdding(true)}>Add endpoint</Button>}
      />
      <RequireAbility ability="manage_webhooks" what="webhooks">
        <Endpoints adding={adding} onAddingChange={setAdding} />
      </RequireAbility>
    </>
  )
}

/** The endpoints, and the dialogs of the header's "Add endpoint" (`adding`). */
function Endpoints({ adding, onAddingChange }: { adding: boolean; onAddingChange: (adding: boolean) => void }) {
  const webhooks = useQuery(webhooksQuery)
  const [secret, setSecret] = useState<string | null>(null)
  // Until the list arrives, the safe assumption: the guard is on (as it is unless the operator turned it off).
  const privateAllowed = webhooks.data?.private_addresses_allowed ?? false
  return (
    <>
      <QueryView query={webhooks} loadingLabel="Loading endpoints…">
        {({ webhooks: list }) =>
          list.length === 0 ? (
            <EmptyState title="No endpoints yet" description={`Add the HTTPS address of your receiver with “Add endpoint”. ${addressRule(privateAllowed)}`} />
          ) : (
            <div className="flex flex-col gap-4">
              {list.map((webhook) => (
                <Endpoint key={webhook.id} webhook={webhook} onSecret={setSecret} />
              ))}
            </div>
          )
        }
      </QueryView>
      <AddEndpointDialog
        privateAllowed={privateAllowed}
        open={adding}
        onOpenChange={onAddingChange}
        onCreated={(created) => {
          onAddingChange(false)
          setSecret(created)
        }}
      />
      <SecretDialog
        secret={secret}
        title="Your endpoint's signing secret"
        description="This is the only time the secret is shown. Your receiver checks each delivery's signature with it."
        copyLabel="Copy secret"
        testId="shown-secret"
        onClose={() => setSecret(null)}
      />
    </>
  )
}

/** The URL rule as this instance applies it (WEBHOOK_ALLOW_PRIVATE, reported by the endpoint list). */
const addressRule = (privateAllowed: boolean) =>
  privateAllowed
    ? 'This instance also accepts private, loopback and link-local addresses.'
    : 'Private, loopback and link-local addresses are refused so that webhooks cannot probe internal networks.'

interface AddEndpointDialogProps {
  privateAllowed: boolean
  open: boolean
  onOpenChange: (open: boolean) => void
  onCreated: (secret: string) => void
}

function AddEndpointDialog({ privateAllowed, open, onOpenChange, onCreated }: AddEndpointDialogProps) {
  const [url, setUrl] = useState('')
  const create = useCreateWebhook()
  const upgrade = isApiError(create.error, 402)
  return (
    <FormDialog
      open={open}
      onOpenChange={(next) => {
        if (!next) create.reset()
        onOpenChange(next)
      }}
      title="Add a webhook endpoint"
      formId="add-webhook"
      submitLabel="Add endpoint"
      pending={create.isPending}
      onSubmit={() =>
        create.mutate(url, {
          onSuccess: (created) => {
            setUrl('')
            onCreated(created.secret)
          },
        })
      }
    >
      <Field
        label="Endpoint URL"
        hint={`https://… reachable from the internet. ${addressRule(privateAllowed)}`}
        error={upgrade ? null : fieldErrorText(create.error)}
        required
      >
        <Input type="url" inputMode="url" placeholder="https://example.com/signet-events" value={url} onChange={(e) => setUrl(e.target.value)} />
      </Field>
      {upgrade && <ErrorMessage className="mt-3" error={create.error} />}
    </FormDialog>
  )
}

function Endpoint({ webhook, onSecret }: { webhook: Webhook; onSecret: (secret: string) => void }) {
  const toast = useToast()
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null)
  const [showLog, setShowLog] = useState(false)
  const toggle = useSetWebhookEnabled()
  const test = useSendTestEvent()
  const rotate = useRotateWebhookSecret()
  const remove = useDeleteWebhook()
  return (
    <Card
      level={2}
      title={<span className="font-mono text-sm break-all">{webhook.url}</span>}
      description={`Added ${formatDateTime(webhook.created_at)}`}
      actions={<WebhookEndpointStatusBadge status={webhook.enabled ? 'enabled' : 'disabled'} />}
    >
      <div className="flex flex-wrap items-center gap-3">
        <Switch
          label="Deliver events"
          checked={webhook.enabled}
          disabled={toggle.isPending}
          onCheckedChange={(enabled) => toggle.mutate({ id: webhook.id, enabled })}
        />
        <div className="flex flex-1 flex-wrap justify-end gap-2">
          <Button size="sm" variant="secondary" loading={test.isPending} onClick={() => test.mutate(webhook.id)}>
            Send test event
          </Button>
          <Button size="sm" variant="secondary" onClick={() => setShowLog((shown) => !shown)} aria-expanded={showLog}>
            {showLog ? 'Hide deliveries' : 'Deliveries'}
          </Button>
          <Button size="sm" variant="secondary" onClick={() => setConfirm('rotate')}>
            Rotate secret
          </Button>
          <Button size="sm" variant="danger-secondary" onClick={() => setConfirm('delete')}>
            Delete
          </Button>
        </div>
      </div>
      {toggle.error && <ErrorMessage className="mt-3" error={toggle.error} />}
      {test.error && <ErrorMessage className="mt-3" title="The test event was not sent" error={test.error} />}
      {test.data && <TestResult result={test.data} />}
      {showLog && <DeliveryLog webhookId={webhook.id} />}

      <ConfirmDialog
        open={confirm === 'rotate'}
        onOpenChange={(open) => !open && setConfirm(null)}
        title="Rotate the signing secret?"
        description="Deliveries are signed with the new secret from now on; update your receiver right away."
        confirmLabel="Rotate secret"
        onConfirm={async () => {
          const rotated = await rotate.mutateAsync(webhook.id)
          onSecret(rotated.secret)
        }}
      />
      <ConfirmDialog
        open={confirm === 'delete'}
        onOpenChange={(open) => !open && setConfirm(null)}
        title="Delete this endpoint?"
        description={`No more events go to ${webhook.url}; its delivery log is deleted with it.`}
        confirmLabel="Delete endpoint"
        destructive
        onConfirm={async () => {
          await remove.mutateAsync(webhook.id)
          toast({ title: 'Endpoint deleted', tone: 'success' })
        }}
      />
    </Card>
  )
}

/** What the receiver answered to the test event: never "success" unless it answered 2xx. */
function TestResult({ result }: { result: WebhookTestResult }) {
  return (
    <div
      role="status"
      className={`mt-3 rounded-md border p-3 text-sm ${result.delivered ? 'border-green-300 bg-green-50 text-green-900' : 'border-red-300 bg-red-50 text-red-900'}`}
    >
      <p className="font-semibold">
        {result.delivered
          ? `Delivered: your endpoint answered ${result.status_code ?? ''} in ${result.latency_ms} ms.`
          : result.status_code !== null
            ? `Not delivered: your endpoint answered ${result.status_code} in ${result.latency_ms} ms.`
            : `Not delivered after ${result.latency_ms} ms.`}
      </p>
      {result.error && <p className="mt-1">{result.error}</p>}
      {result.response_body_excerpt && (
        <pre className="mt-2 max-h-40 overflow-auto rounded bg-white/70 p-2 text-xs whitespace-pre-wrap">{result.response_body_excerpt}</pre>
      )}
    </div>
  )
}

function DeliveryLog({ webhookId }: { webhookId: string }) {
  const [offset, setOffset] = useState(0)
  const deliveries = useQuery(deliveriesQuery(webhookId, offset))
  return (
    <section className="mt-4" aria-label="Delivery log">
      <h3 className="mb-2 text-sm font-semibold">Delivery log</h3>
      <QueryView query={deliveries} loadingLabel="Loading deliveries…">
        {(page) =>
          page.deliveries.length === 0 ? (
            <EmptyState title="No deliveries yet" description="Events appear here as documents move. “Send test event” sends one now." />
          ) : (
            <>
              <Table caption="Deliveries">
                <THead>
                  <Tr>
                    <Th>Event</Th>
                    <Th>Status</Th>
                    <Th className="hidden sm:table-cell">Response</Th>
                    <Th className="hidden md:table-cell">Latency</Th>
                    <Th className="hidden md:table-cell">Attempts</Th>
                    <Th className="hidden sm:table-cell">Created</Th>
                    <ActionsTh />
                  </Tr>
                </THead>
                <TBody>
                  {page.deliveries.map((delivery) => (
                    <DeliveryRow key={delivery.id} webhookId={webhookId} delivery={delivery} />
                  ))}
                </TBody>
              </Table>
              <Pagination offset={offset} limit={DELIVERY_PAGE_SIZE} total={page.total} onChange={setOffset} />
            </>
          )
        }
      </QueryView>
    </section>
  )
}

function DeliveryRow({ webhookId, delivery }: { webhookId: string; delivery: Delivery }) {
  const [open, setOpen] = useState(false)
  const redeliver = useRedeliver()
  return (
    <>
      <Tr>
        <Td>
          <code>{delivery.event}</code>
          <span className="block text-xs text-muted sm:hidden">{formatDateTime(delivery.created_at)}</span>
        </Td>
        <Td>
          <WebhookDeliveryStatusBadge status={delivery.status} />
        </Td>
        <Td className="hidden sm:table-cell">{delivery.response_code ?? '—'}</Td>
        <Td className="hidden whitespace-nowrap md:table-cell">{delivery.latency_ms === null ? '—' : `${delivery.latency_ms} ms`}</Td>
        <Td className="hidden md:table-cell">{delivery.attempts}</Td>
        <Td className="hidden whitespace-nowrap sm:table-cell">{formatDateTime(delivery.created_at)}</Td>
        <Td className="text-right">
          <span className="inline-flex flex-wrap justify-end gap-1">
            <Button size="sm" variant="ghost" aria-expanded={open} onClick={() => setOpen((shown) => !shown)}>
              {open ? 'Hide' : 'Details'}
            </Button>
            <Button
              size="sm"
              variant="secondary"
              loading={redeliver.isPending}
              disabled={delivery.status === 'pending'}
              onClick={() => redeliver.mutate({ webhookId, deliveryId: delivery.id })}
            >
              Redeliver
            </Button>
          </span>
        </Td>
      </Tr>
      {(open || redeliver.error) && (
        <Tr>
          <Td colSpan={7} className="bg-gray-50">
            {redeliver.error && <ErrorMessage className="mb-2" error={redeliver.error} />}
            {open && (
              <div className="text-sm">
                <p>
                  Request: <code>POST</code> event <code>{delivery.event}</code>, webhook-id <code>{delivery.id}</code>
                  {delivery.document_id && (
                    <>
                      , document <code>{delivery.document_id}</code>
                    </>
                  )}
                </p>
                {delivery.error && <p className="mt-1 text-red-800">Last error: {delivery.error}</p>}
                <ol className="mt-2 flex flex-col gap-1">
                  {delivery.attempt_log.map((attempt, index) => (
                    <li key={attempt.at + String(index)}>
                      Attempt {index + 1} · {formatDateTime(attempt.at)} · {attempt.status_code === null ? 'no response' : `HTTP ${attempt.status_code}`} ·{' '}
                      {attempt.latency_ms} ms{attempt.error ? ` · ${attempt.error}` : ''}
                    </li>
                  ))}
                </ol>
              </div>
            )}
          </Td>
        </Tr>
      )}
    </>
  )
}

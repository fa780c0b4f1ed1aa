import { useQuery, useQueryClient } from '@tanstack/react-query'
import { getRouteApi, useNavigate } from '@tanstack/react-router'
import { useEffect, useId, useState, type ReactNode } from 'react'
import { isApiError } from '../../api/client.ts'
import { useLogOut } from '../../auth/session.ts'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Select } from '../../components/Select.tsx'
import { Loading } from '../../components/Spinner.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { placeError } from '../../lib/people-text.ts'
import { ACCESS_LABELS, WORKSPACE_ROLE_LABELS, type Access } from '../../lib/vocabulary.ts'
import { consentDetailsQuery, consentGone, consentKeys, consentPath, SignInNeeded, useConsentDecision, type ConsentDetails, type Scope } from './queries.ts'

const route = getRouteApi('/public/oauth/consent/$uid')

/** What each scope lets an app do, in the words the consent page and Connected apps use. */
const GRANT_WORDS: Record<Scope, string> = {
  read: 'Read-only access to documents and usage',
  write: 'Send, seal and manage documents',
}

const WRITE_NEEDS_ROLE = 'Only owners and admins can let an app send or change documents.'

/**
 * Where an app that connects with OAuth (an AI agent given only the MCP address) asks for a
 * workspace: who asks, where the browser returns, which workspace, and what it may do. Allow
 * or Deny sends the browser back to the app.
 */
export function ConsentPage() {
  const { uid } = route.useParams()
  const details = useQuery(consentDetailsQuery(uid))
  if (details.isPending) {
    return (
      <>
        <AuthHeading title="Connect an app" />
        <Loading label="Opening the request…" />
      </>
    )
  }
  if (details.isError) return <DetailsRefused uid={uid} error={details.error} onRetry={() => void details.refetch()} />
  return <ConsentForm uid={uid} details={details.data} />
}

function DetailsRefused({ uid, error, onRetry }: { uid: string; error: Error; onRetry: () => void }) {
  useSignInAgainOn401(uid, error)
  if (consentGone(error)) return <Expired />
  if (isApiError(error, 403)) {
    return (
      <>
        <AuthHeading title="This app cannot be connected" />
        <ErrorMessage error={error} />
        <p className="mt-4 text-sm text-muted">Go back to your app; you can try again once this is solved.</p>
      </>
    )
  }
  if (error instanceof SignInNeeded) return <Loading label="Opening the login page…" />
  return (
    <>
      <AuthHeading title="Connect an app" />
      <ErrorMessage error={error} onRetry={onRetry} />
    </>
  )
}

function Expired() {
  return (
    <>
      <AuthHeading title="This request has expired">Go back to your app and connect again.</AuthHeading>
      <p className="text-sm">An app’s request works once, for a limited time, and only in the browser it was started in.</p>
    </>
  )
}

/** A session that ended meanwhile: the login page, which leads back here. */
function useSignInAgainOn401(uid: string, error: Error | null) {
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const signedOut = error instanceof SignInNeeded
  useEffect(() => {
    if (!signedOut) return
    queryClient.removeQueries({ queryKey: consentKeys.details(uid) })
    void navigate({ to: '/login', search: { next: consentPath(uid) } })
  }, [signedOut, uid, navigate, queryClient])
}

type Offer =
  /** Both asked, and the person may grant both: they choose. */
  | 'choice'
  /** Read asked, or both asked but only read may be granted here. */
  | 'read'
  /** Write alone asked, and this person may grant it. */
  | 'write'
  /** Write alone asked, and this person may not grant it in this workspace: only Deny. */
  | 'none'

function offerOf(requested: readonly Scope[], canGrantWrite: boolean): Offer {
  const write = requested.includes('write')
  const read = requested.includes('read') || !write
  if (!write) return 'read'
  if (!canGrantWrite) return read ? 'read' : 'none'
  return read ? 'choice' : 'write'
}

function ConsentForm({ uid, details }: { uid: string; details: ConsentDetails }) {
  const { client, requested, workspaces, user } = details
  const [workspaceId, setWorkspaceId] = useState(() => (workspaces.find((w) => w.selected) ?? workspaces[0])?.id ?? '')
  const [access, setAccess] = useState<Access>('read-write')
  const decision = useConsentDecision(uid)
  const logOut = useLogOut()
  const navigate = useNavigate()
  useSignInAgainOn401(uid, decision.error)

  if (consentGone(decision.error)) return <Expired />
  const workspace = workspaces.find((w) => w.id === workspaceId)
  const offer = offerOf(requested, workspace?.can_grant_write ?? false)
  const scopes: Scope[] = offer === 'write' ? ['write'] : offer === 'choice' && access === 'read-write' ? ['read', 'write'] : ['read']
  const askedWriteWithoutRole = requested.includes('write') && workspace !== undefined && !workspace.can_grant_write
  const leaving = decision.isSuccess
  const busy = decision.isPending || leaving || logOut.isPending
  const errors = placeError(decision.error instanceof SignInNeeded ? null : decision.error, ['workspace_id', 'scopes'])

  const switchAccount = async () => {
    await logOut.mutateAsync().catch(() => undefined)
    await navigate({ to: '/login', search: { next: consentPath(uid) } })
  }

  return (
    <>
      <AuthHeading title={`${client.name} wants to use your Signet workspace`}>
        It will return you to <strong className="font-semibold text-ink">{client.redirect_host}</strong>.
      </AuthHeading>
      {!client.name_verified && (
        <p className="-mt-3 mb-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          This name was given by the app itself and is not verified by Signet.
          {client.uri && (
            <>
              {' '}
              It says its website is <span className="font-medium wrap-anywhere">{hostOf(client.uri)}</span>.
            </>
          )}
        </p>
      )}

      <div className="mb-4 flex flex-wrap items-center justify-between gap-x-3 gap-y-1 rounded-md bg-gray-50 px-3 py-2 text-sm">
        <span className="min-w-0 wrap-anywhere">
          Signed in as <strong className="font-semibold">{user.email}</strong>
        </span>
        <button type="button" className="font-medium text-brand-700 underline disabled:text-muted" disabled={busy} onClick={() => void switchAccount()}>
          Use another account
        </button>
      </div>

      <div className="flex flex-col gap-4">
        {workspaces.length > 1 ? (
          <Field label="Workspace" error={errors.under('workspace_id')}>
            <Select
              value={workspaceId}
              onValueChange={setWorkspaceId}
              disabled={busy}
              options={workspaces.map((w) => ({ value: w.id, label: `${w.name} (${WORKSPACE_ROLE_LABELS[w.role]})` }))}
            />
          </Field>
        ) : (
          <div>
            <h2 className="text-sm font-medium">Workspace</h2>
            <p className="mt-1 text-sm">
              <strong className="font-semibold">{workspace?.name}</strong>
              {workspace && <span className="text-muted"> · {WORKSPACE_ROLE_LABELS[workspace.role]}</span>}
            </p>
            {errors.under('workspace_id') && (
              <p className="mt-1 text-sm text-red-700" role="alert">
                {errors.under('workspace_id')}
              </p>
            )}
          </div>
        )}

        <GrantSection
          clientName={client.name}
          offer={offer}
          access={access}
          onAccessChange={setAccess}
          disabled={busy}
          askedWriteWithoutRole={askedWriteWithoutRole}
          severalWorkspaces={workspaces.length > 1}
          error={errors.under('scopes')}
        />

        {errors.above && <ErrorMessage error={errors.above} />}
        {leaving && (
          <p role="status" className="text-sm text-muted">
            Returning you to {client.redirect_host}…
          </p>
        )}
        <div className="grid grid-cols-2 gap-3">
          <Button
            variant="secondary"
            disabled={busy}
            loading={decision.isPending && decision.variables.allow === false}
            onClick={() => decision.mutate({ allow: false })}
          >
            Deny
          </Button>
          <Button
            disabled={busy || offer === 'none' || !workspace}
            loading={decision.isPending && decision.variables.allow}
            onClick={() => decision.mutate({ allow: true, workspace_id: workspaceId, scopes })}
          >
            Allow
          </Button>
        </div>
        <p className="text-xs text-muted">You can revoke its access under Settings → Connected apps.</p>
      </div>
    </>
  )
}

interface GrantSectionProps {
  clientName: string
  offer: Offer
  access: Access
  onAccessChange: (access: Access) => void
  disabled: boolean
  /** The app asked to write, and the person may not grant that in the chosen workspace. */
  askedWriteWithoutRole: boolean
  severalWorkspaces: boolean
  error: string | null
}

/** What the app may do: a choice when it asked for both and the person may grant both, else the one grant in words. */
function GrantSection({ clientName, offer, access, onAccessChange, disabled, askedWriteWithoutRole, severalWorkspaces, error }: GrantSectionProps) {
  const id = useId()
  const errorText = error && (
    <p id={`${id}-error`} className="mt-2 text-sm text-red-700" role="alert">
      {error}
    </p>
  )
  if (offer === 'choice') {
    return (
      <fieldset aria-describedby={error ? `${id}-error` : undefined}>
        <legend className="text-sm font-medium">What {clientName} may do</legend>
        <div className="mt-1.5 flex flex-col gap-2">
          <AccessOption name={id} value="read-write" checked={access === 'read-write'} onChange={onAccessChange} disabled={disabled}>
            {GRANT_WORDS.write}, and read documents and usage
          </AccessOption>
          <AccessOption name={id} value="read" checked={access === 'read'} onChange={onAccessChange} disabled={disabled}>
            {GRANT_WORDS.read}
          </AccessOption>
        </div>
        {errorText}
      </fieldset>
    )
  }
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="text-sm font-medium">
        What {clientName} may do
      </h2>
      {offer === 'none' ? (
        <div className="mt-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          <p>
            It asks to send, seal and manage documents. {WRITE_NEEDS_ROLE}{' '}
            {severalWorkspaces ? 'Choose a workspace where you are an owner or admin, or deny.' : 'You can only deny.'}
          </p>
        </div>
      ) : (
        <div className="mt-2 rounded-md border border-line p-3">
          <GrantList scopes={offer === 'write' ? ['write'] : ['read']} />
          {offer === 'read' && askedWriteWithoutRole && (
            <p className="mt-2 text-sm text-muted">It also asked to send, seal and manage documents. {WRITE_NEEDS_ROLE}</p>
          )}
        </div>
      )}
      {errorText}
    </section>
  )
}

function AccessOption({
  name,
  value,
  checked,
  onChange,
  disabled,
  children,
}: {
  name: string
  value: Access
  checked: boolean
  onChange: (access: Access) => void
  disabled: boolean
  children: ReactNode
}) {
  const id = `${name}-${value}`
  return (
    <label
      htmlFor={id}
      className="flex cursor-pointer gap-3 rounded-md border border-line px-3 py-2.5 has-[:checked]:border-brand-600 has-[:checked]:bg-brand-50 has-[:disabled]:cursor-not-allowed"
    >
      <input
        id={id}
        type="radio"
        name={name}
        value={value}
        checked={checked}
        disabled={disabled}
        onChange={() => onChange(value)}
        aria-labelledby={`${id}-label`}
        aria-describedby={`${id}-description`}
        className="mt-0.5 size-4 shrink-0 accent-brand-600"
      />
      <span className="min-w-0">
        <span id={`${id}-label`} className="block text-sm font-semibold">
          {ACCESS_LABELS[value]}
        </span>
        <span id={`${id}-description`} className="block text-sm text-muted">
          {children}
        </span>
      </span>
    </label>
  )
}

function GrantList({ scopes }: { scopes: Scope[] }) {
  return (
    <ul className="flex flex-col gap-1 text-sm">
      {scopes.map((scope) => (
        <li key={scope} className="flex gap-2">
          <svg viewBox="0 0 20 20" className="mt-0.5 size-4 shrink-0 text-brand-600" fill="currentColor" aria-hidden="true">
            <path d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.6l7.3-7.3a1 1 0 0 1 1.4 0Z" />
          </svg>
          {GRANT_WORDS[scope]}
        </li>
      ))}
    </ul>
  )
}

/** The host of the app's own address, or the address as given when it is not a URL. */
function hostOf(uri: string): string {
  try {
    return new URL(uri).host
  } catch {
    return uri
  }
}

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { isApiError } from '../../api/client.ts'
import { Badge } from '../../components/Badge.tsx'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { CopyButton } from '../../components/CopyButton.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { formatDate } from '../../lib/format.ts'
import { PasswordDialog } from './PasswordDialog.tsx'
import { useShowRecoveryCodes } from './recovery-codes-context.tsx'
import { refreshSecurity, securityApi, type TotpSetup, type TwoFactorStatus } from './security-api.ts'

/** The authenticator app (TOTP): set it up with a QR code or a typed key and a first code, or remove it. */
export function TotpCard({ status }: { status: TwoFactorStatus }) {
  const queryClient = useQueryClient()
  const [setup, setSetup] = useState<TotpSetup | null>(null)
  const [removing, setRemoving] = useState(false)
  const showRecoveryCodes = useShowRecoveryCodes()
  const start = useMutation({ mutationFn: securityApi.startTotp, onSuccess: setSetup })
  const finished = async (recoveryCodes: string[] | null) => {
    // Recovery codes come with a first second step.
    if (recoveryCodes) showRecoveryCodes(recoveryCodes)
    await refreshSecurity(queryClient)
    setSetup(null)
  }
  return (
    <Card
      title="Authenticator app"
      description="A 6-digit code from an app on your phone (Google Authenticator, Microsoft Authenticator, 1Password, Aegis…) after your password."
      actions={
        status.totp.enabled ? <Badge tone="success">{status.totp.enabled_at ? `On since ${formatDate(status.totp.enabled_at)}` : 'On'}</Badge> : undefined
      }
    >
      {status.totp.enabled ? (
        <Button variant="danger-secondary" onClick={() => setRemoving(true)}>
          Remove the authenticator app
        </Button>
      ) : setup ? (
        <TotpSetupForm
          setup={setup}
          onDone={finished}
          onCancel={() => setSetup(null)}
          onExpired={() => {
            setSetup(null)
            start.reset()
          }}
        />
      ) : (
        <div className="flex flex-col items-start gap-3">
          {start.error && <ErrorMessage error={start.error} />}
          <Button loading={start.isPending} onClick={() => start.mutate()}>
            Set up an authenticator app
          </Button>
        </div>
      )}
      <PasswordDialog
        open={removing}
        onOpenChange={setRemoving}
        formId="remove-totp"
        title="Remove the authenticator app?"
        description="Its codes stop working at once. With no second step left, your recovery codes are deleted too."
        submitLabel="Remove app"
        onConfirm={async (password) => {
          await securityApi.disableTotp(password)
          await refreshSecurity(queryClient)
        }}
      />
    </Card>
  )
}

const focusOnMount = (element: HTMLElement | null) => element?.focus()

interface TotpSetupFormProps {
  setup: TotpSetup
  onDone: (recoveryCodes: string[] | null) => Promise<void>
  onCancel: () => void
  onExpired: () => void
}

function TotpSetupForm({ setup, onDone, onCancel, onExpired }: TotpSetupFormProps) {
  const [code, setCode] = useState('')
  const [password, setPassword] = useState('')
  const [expired, setExpired] = useState<string | null>(null)
  const confirm = useMutation({
    mutationFn: () => securityApi.confirmTotp({ code: code.trim(), password }),
    onSuccess: ({ recovery_codes }) => onDone(recovery_codes),
    onError: (error) => {
      if (isApiError(error, 410)) setExpired(error.message)
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    confirm.mutate()
  }
  const message = confirm.error && !isApiError(confirm.error, 410) ? confirm.error.message : null
  // The server's text names what was wrong; it goes under that field.
  const passwordError = message && /password/i.test(message) ? message : null
  const codeError = message && !passwordError && /code/i.test(message) ? message : null
  const otherError = message && !passwordError && !codeError ? message : null
  if (expired) {
    return (
      <div className="flex flex-col items-start gap-3">
        <ErrorMessage error={expired} />
        <Button onClick={onExpired}>Start again</Button>
      </div>
    )
  }
  return (
    // Focus moves here when the set-up opens (its button is gone), and a screen reader names the region.
    <div
      ref={focusOnMount}
      tabIndex={-1}
      role="group"
      aria-label="Set up the authenticator app"
      className="grid gap-5 focus:outline-none md:grid-cols-[auto_minmax(0,1fr)]"
    >
      <div className="flex flex-col items-center gap-2 md:items-start">
        <img
          src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qr_svg)}`}
          alt="QR code for your authenticator app: scan it with the app"
          width={192}
          height={192}
          className="size-48 rounded-md border border-line bg-white p-2"
        />
        <a href={setup.otpauth_uri} className="text-sm font-medium text-brand-700 underline md:hidden">
          On this phone? Open it in your app
        </a>
      </div>
      <div className="flex min-w-0 flex-col gap-4">
        <ol className="list-decimal space-y-1 pl-5 text-sm">
          <li>In your authenticator app, add an account and scan the QR code.</li>
          <li>Cannot scan it? Choose to enter a key, and type this one (spaces do not matter):</li>
        </ol>
        <div className="flex flex-wrap items-center gap-2">
          <code data-testid="totp-secret" className="rounded-md border border-line bg-gray-50 px-3 py-2 font-mono text-sm [overflow-wrap:anywhere]">
            {setup.secret}
          </code>
          <CopyButton value={setup.secret.replace(/\s/g, '')} label="Copy the key" />
        </div>
        <form onSubmit={submit} className="flex max-w-sm flex-col gap-4" noValidate>
          <Field label="Code from the app" hint="Then type the 6-digit code the app shows for Signet." error={codeError} required>
            <Input autoComplete="one-time-code" inputMode="numeric" maxLength={10} value={code} onChange={(e) => setCode(e.target.value)} />
          </Field>
          <Field label="Your password" error={passwordError} required>
            <Input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
          </Field>
          {otherError && <ErrorMessage error={otherError} />}
          <div className="flex flex-wrap gap-2">
            <Button type="submit" loading={confirm.isPending} disabled={code.trim() === '' || password === ''}>
              Turn on
            </Button>
            <Button variant="secondary" onClick={onCancel}>
              Cancel
            </Button>
          </div>
        </form>
      </div>
    </div>
  )
}

import { useState, type FormEvent } from 'react'
import { Badge } from '../../components/Badge.tsx'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { CopyButton } from '../../components/CopyButton.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { formatDate } from '../../lib/format.ts'
import { placeError } from '../../lib/people-text.ts'
import { PasswordDialog } from './PasswordDialog.tsx'
import { setupExpired, useConfirmTotp, useDisableTotp, useStartTotp, type TotpSetup, type TwoFactorStatus } from './queries.ts'
import { useShowRecoveryCodes } from './recovery-codes-context.tsx'

/** The authenticator app (TOTP): set it up with a QR code or a typed key and a first code, or remove it. */
export function TotpCard({ status }: { status: TwoFactorStatus }) {
  const [setup, setSetup] = useState<TotpSetup | null>(null)
  const [removing, setRemoving] = useState(false)
  const showRecoveryCodes = useShowRecoveryCodes()
  const start = useStartTotp()
  const disable = useDisableTotp()
  const finished = (recoveryCodes: string[] | null) => {
    // Recovery codes come with a first second step.
    if (recoveryCodes) showRecoveryCodes(recoveryCodes)
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
          <Button loading={start.isPending} onClick={() => start.mutate(undefined, { onSuccess: setSetup })}>
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
        destructive
        onConfirm={(password) => disable.mutateAsync(password)}
      />
    </Card>
  )
}

const focusOnMount = (element: HTMLElement | null) => element?.focus()

interface TotpSetupFormProps {
  setup: TotpSetup
  onDone: (recoveryCodes: string[] | null) => void
  onCancel: () => void
  onExpired: () => void
}

function TotpSetupForm({ setup, onDone, onCancel, onExpired }: TotpSetupFormProps) {
  const [code, setCode] = useState('')
  const [password, setPassword] = useState('')
  const confirm = useConfirmTotp()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    // Awaited, not an onSuccess callback: in the workspace's gate, the refresh that turns the second
    // step on replaces this form with the workspace, and its recovery codes must still be shown.
    // A refusal is shown from confirm.error.
    const confirmed = await confirm.mutateAsync({ code: code.trim(), password }).catch(() => null)
    if (confirmed) onDone(confirmed.recovery_codes)
  }
  const expired = confirm.error && setupExpired(confirm.error) ? confirm.error.message : null
  const errors = placeError(confirm.error && !expired ? confirm.error : null, ['code', 'password'])
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
        <form onSubmit={(event) => void submit(event)} className="flex max-w-sm flex-col gap-4" noValidate>
          <Field label="Code from the app" hint="Then type the 6-digit code the app shows for Signet." error={errors.under('code')} required>
            <Input autoComplete="one-time-code" inputMode="numeric" maxLength={10} value={code} onChange={(e) => setCode(e.target.value)} />
          </Field>
          <Field label="Your password" error={errors.under('password')} required>
            <Input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
          </Field>
          {errors.above && <ErrorMessage error={errors.above} />}
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

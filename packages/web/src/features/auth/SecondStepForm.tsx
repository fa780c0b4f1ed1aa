import { useMutation } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { isApiError } from '../../api/client.ts'
import type { Me } from '../../auth/session.ts'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { passkeyErrorText, passkeysSupported, signWithPasskey } from '../../lib/passkeys.ts'
import { authApi, type SecondFactorMethod, type SecondStep } from './auth-api.ts'

const SWITCH_LABELS: Record<SecondFactorMethod, string> = {
  passkey: 'Use a passkey',
  totp: 'Use a code from your authenticator app',
  recovery_code: 'Use a recovery code',
}

export interface SecondStepFormProps {
  /** The 202 answer of the password (or of a reset link): the ways this account can finish. */
  step: SecondStep
  /** The line under the heading. */
  intro?: string
  onSignedIn: (me: Me) => Promise<void>
  /** Back to the password: the step expired, or the person wants to start over. */
  onRestart: () => void
  restartLabel?: string
  /** Inside a page that has its own heading (the invitation): an h2 instead of the page's title. */
  embedded?: boolean
}

/**
 * The second sign-in step: a code from the authenticator app, a passkey, or a recovery code,
 * whichever the account has, the first offered first and the others one click away.
 */
export function SecondStepForm({ step, intro, onSignedIn, onRestart, restartLabel = 'Back to log in', embedded = false }: SecondStepFormProps) {
  const usable = step.methods.filter((method) => method !== 'passkey' || passkeysSupported())
  const [method, setMethod] = useState<SecondFactorMethod>(usable[0] ?? 'recovery_code')
  // The step ran out (five minutes, five answers) or was used: only a new sign-in helps.
  const [ended, setEnded] = useState<string | null>(null)
  const onError = (error: Error) => {
    if (isApiError(error, 410)) setEnded(error.message)
  }
  const others = usable.filter((other) => other !== method)
  return (
    <>
      {embedded ? (
        <h2 className="mb-4 text-base font-semibold">Confirm it’s you: your account asks for a second step</h2>
      ) : (
        <AuthHeading title="Confirm it’s you">{intro ?? 'Your account asks for a second step after the password.'}</AuthHeading>
      )}
      {ended ? (
        <div className="flex flex-col gap-4">
          <ErrorMessage error={ended} />
          <Button onClick={onRestart}>Sign in again</Button>
        </div>
      ) : usable.length === 0 ? (
        <ErrorMessage error="Your account’s second step is a passkey, and this browser cannot use passkeys. Sign in from a current browser, or ask the operator of this Signet instance to reset your second step." />
      ) : (
        <>
          {method === 'passkey' ? (
            <PasskeyAnswer onSignedIn={onSignedIn} onError={onError} />
          ) : (
            <CodeAnswer key={method} kind={method} onSignedIn={onSignedIn} onError={onError} />
          )}
          {others.length > 0 && (
            <div className="mt-6 border-t border-line pt-4">
              <h2 className="text-sm font-semibold">Other ways to confirm</h2>
              <ul className="mt-2 flex flex-col items-start gap-1">
                {others.map((other) => (
                  <li key={other}>
                    <button type="button" className="text-sm font-medium text-brand-700 underline" onClick={() => setMethod(other)}>
                      {SWITCH_LABELS[other]}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </>
      )}
      <p className="mt-6 text-sm text-muted">
        Lost your authenticator app or passkey and your recovery codes? The operator of this Signet instance can reset your second step.
      </p>
      {!ended && (
        <p className="mt-3 text-sm">
          <button type="button" className="font-medium text-brand-700 underline" onClick={onRestart}>
            {restartLabel}
          </button>
        </p>
      )}
    </>
  )
}

interface AnswerProps {
  onSignedIn: (me: Me) => Promise<void>
  onError: (error: Error) => void
}

function CodeAnswer({ kind, onSignedIn, onError }: AnswerProps & { kind: 'totp' | 'recovery_code' }) {
  const [code, setCode] = useState('')
  const finish = useMutation({
    mutationFn: kind === 'totp' ? authApi.finishWithTotp : authApi.finishWithRecoveryCode,
    onSuccess: onSignedIn,
    onError: (error) => {
      if (kind === 'totp') setCode('')
      onError(error)
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    finish.mutate(code.trim())
  }
  const error = finish.error && !isApiError(finish.error, 410) ? finish.error.message : null
  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      {kind === 'totp' ? (
        <Field label="Code from your authenticator app" hint="The 6-digit code the app shows for Signet now." error={error} required>
          <Input autoFocus autoComplete="one-time-code" inputMode="numeric" maxLength={10} value={code} onChange={(e) => setCode(e.target.value)} />
        </Field>
      ) : (
        <Field
          label="Recovery code"
          hint="One of the ten codes you saved when you set up the second step, like abcde-23456. Each works once."
          error={error}
          required
        >
          <Input autoFocus autoComplete="off" autoCapitalize="none" spellCheck={false} maxLength={40} value={code} onChange={(e) => setCode(e.target.value)} />
        </Field>
      )}
      <Button type="submit" loading={finish.isPending} disabled={code.trim() === ''}>
        {kind === 'totp' ? 'Verify and log in' : 'Use code and log in'}
      </Button>
    </form>
  )
}

function PasskeyAnswer({ onSignedIn, onError }: AnswerProps) {
  const answer = useMutation({
    mutationFn: async () => {
      const { options } = await authApi.secondStepPasskeyOptions()
      return authApi.finishWithPasskey({ response: await signWithPasskey(options) })
    },
    onSuccess: onSignedIn,
    onError,
  })
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm">Use the passkey you added to your account: on this device, your phone, or a security key.</p>
      {answer.error && !isApiError(answer.error, 410) && <ErrorMessage error={passkeyErrorText(answer.error)} />}
      <Button autoFocus loading={answer.isPending} onClick={() => answer.mutate()}>
        Use a passkey and log in
      </Button>
    </div>
  )
}

import { useState, type FormEvent } from 'react'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { passkeyErrorText, passkeysSupported } from '../../lib/passkeys.ts'
import { fieldErrorText } from '../../lib/people-text.ts'
import { secondStepEnded, useFinishWithCode, useFinishWithPasskey, type SecondFactorMethod, type SecondStep } from './queries.ts'

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
  /** Where the app opens once signed in (the login page's `next`); the overview when absent. */
  next?: string | undefined
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
export function SecondStepForm({ step, intro, next, onRestart, restartLabel = 'Back to log in', embedded = false }: SecondStepFormProps) {
  const usable = step.methods.filter((method) => method !== 'passkey' || passkeysSupported())
  const [method, setMethod] = useState<SecondFactorMethod>(usable[0] ?? 'recovery_code')
  const [ended, setEnded] = useState<string | null>(null)
  const onError = (error: Error) => {
    if (secondStepEnded(error)) setEnded(error.message)
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
          {method === 'passkey' ? <PasskeyAnswer next={next} onError={onError} /> : <CodeAnswer key={method} kind={method} next={next} onError={onError} />}
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
  next: string | undefined
  onError: (error: Error) => void
}

function CodeAnswer({ kind, next, onError }: AnswerProps & { kind: 'totp' | 'recovery_code' }) {
  const [code, setCode] = useState('')
  const finish = useFinishWithCode(kind, next)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    finish.mutate(code.trim(), {
      onError: (error) => {
        if (kind === 'totp') setCode('')
        onError(error)
      },
    })
  }
  // The one control shows every refusal but an ended step, which replaces the form.
  const error = finish.error && !secondStepEnded(finish.error) ? fieldErrorText(finish.error) : null
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

function PasskeyAnswer({ next, onError }: AnswerProps) {
  const answer = useFinishWithPasskey(next)
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm">Use the passkey you added to your account: on this device, your phone, or a security key.</p>
      {answer.error && !secondStepEnded(answer.error) && <ErrorMessage error={passkeyErrorText(answer.error)} />}
      <Button autoFocus loading={answer.isPending} onClick={() => answer.mutate(undefined, { onError })}>
        Use a passkey and log in
      </Button>
    </div>
  )
}

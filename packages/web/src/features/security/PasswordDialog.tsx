import { useState, type ReactNode } from 'react'
import { FormDialog } from '../../components/Dialog.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { placeError } from '../../lib/people-text.ts'

export interface PasswordDialogProps {
  open: boolean
  onOpenChange: (open: boolean) => void
  title: string
  description: ReactNode
  submitLabel: string
  /** A red submit button, for a confirmation that removes something. */
  destructive?: boolean
  /** A stable id for the form (ties the footer's button to it). */
  formId: string
  /** Runs with the password; the dialog closes when it resolves, and shows the error when it throws (under the field when it is about the password). */
  onConfirm: (password: string) => Promise<unknown>
}

/** Changes to how the account signs in ask for the password again: one field, the server's answer under it. */
export function PasswordDialog({ open, onOpenChange, title, description, submitLabel, destructive, formId, onConfirm }: PasswordDialogProps) {
  const [password, setPassword] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const change = (next: boolean) => {
    if (!next) {
      setPassword('')
      setError(null)
    }
    onOpenChange(next)
  }
  const submit = async () => {
    setBusy(true)
    setError(null)
    try {
      await onConfirm(password)
      change(false)
    } catch (thrown) {
      setError(thrown)
    } finally {
      setBusy(false)
    }
  }
  const errors = placeError(error, ['password'])
  return (
    <FormDialog
      open={open}
      onOpenChange={change}
      title={title}
      description={description}
      formId={formId}
      submitLabel={submitLabel}
      destructive={destructive}
      pending={busy}
      submitDisabled={password === ''}
      onSubmit={() => void submit()}
    >
      <Field label="Your password" error={errors.under('password')} required>
        <Input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
      {errors.above && <ErrorMessage className="mt-3" error={errors.above} />}
    </FormDialog>
  )
}

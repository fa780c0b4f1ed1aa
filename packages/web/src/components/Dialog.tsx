import * as AlertDialogPrimitive from '@radix-ui/react-alert-dialog'
import * as DialogPrimitive from '@radix-ui/react-dialog'
import { useState, type FormEvent, type ReactNode } from 'react'
import { errorMessage } from '../api/client.ts'
import { cn } from '../lib/cn.ts'
import { Button } from './Button.tsx'
import { ErrorMessage } from './ErrorMessage.tsx'

const overlayClass = 'fixed inset-0 z-40 bg-gray-900/50'
const contentClass =
  'fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg bg-white p-5 shadow-xl focus:outline-none'

export interface DialogProps {
  open: boolean
  onOpenChange: (open: boolean) => void
  title: ReactNode
  description?: ReactNode
  children?: ReactNode
  /** Buttons under the content (e.g. Cancel + a submit button with form="…"). */
  footer?: ReactNode
  className?: string
}

/** A modal dialog: focus trapped inside, Escape closes it, focus returns to the opener. */
export function Dialog({ open, onOpenChange, title, description, children, footer, className }: DialogProps) {
  return (
    <DialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className={overlayClass} />
        <DialogPrimitive.Content className={cn(contentClass, className)} {...(description ? {} : { 'aria-describedby': undefined })}>
          <DialogPrimitive.Title className="text-lg font-semibold">{title}</DialogPrimitive.Title>
          {description && <DialogPrimitive.Description className="mt-1 text-sm text-muted">{description}</DialogPrimitive.Description>}
          <div className="mt-4">{children}</div>
          {footer && <div className="mt-5 flex flex-wrap justify-end gap-2">{footer}</div>}
          <DialogPrimitive.Close className="absolute right-3 top-3 rounded p-1 text-muted hover:bg-gray-100" aria-label="Close">
            <svg viewBox="0 0 20 20" className="size-5" fill="currentColor" aria-hidden="true">
              <path d="M5.3 5.3a1 1 0 0 1 1.4 0L10 8.6l3.3-3.3a1 1 0 1 1 1.4 1.4L11.4 10l3.3 3.3a1 1 0 0 1-1.4 1.4L10 11.4l-3.3 3.3a1 1 0 0 1-1.4-1.4L8.6 10 5.3 6.7a1 1 0 0 1 0-1.4Z" />
            </svg>
          </DialogPrimitive.Close>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  )
}

export interface FormDialogProps extends Omit<DialogProps, 'footer'> {
  /** The form's id, which ties the footer's submit button to it. */
  formId: string
  submitLabel: string
  /** Red submit button, for a confirmation that removes something (a passkey, the authenticator app). */
  destructive?: boolean
  pending: boolean
  /** Disables the submit button (e.g. while a required field is empty). */
  submitDisabled?: boolean
  onSubmit: () => void
}

/** A dialog around one form, with Cancel and the submit button in its footer; Enter in a field submits. */
export function FormDialog({ formId, submitLabel, destructive, pending, submitDisabled, onSubmit, children, ...dialog }: FormDialogProps) {
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onSubmit()
  }
  return (
    <Dialog
      {...dialog}
      footer={
        <>
          <Button variant="secondary" onClick={() => dialog.onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" form={formId} variant={destructive ? 'danger' : 'primary'} loading={pending} disabled={submitDisabled ?? false}>
            {submitLabel}
          </Button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} noValidate>
        {children}
      </form>
    </Dialog>
  )
}

export interface ConfirmDialogProps {
  open: boolean
  onOpenChange: (open: boolean) => void
  title: ReactNode
  description: ReactNode
  confirmLabel: string
  /** Red confirm button (delete, revoke, void). */
  destructive?: boolean
  /** Runs on confirm; the dialog closes when it resolves and shows the error text when it throws. */
  onConfirm: () => Promise<unknown> | void
}

/** "Are you sure?" with the action's consequence; errors stay in the dialog. */
export function ConfirmDialog({ open, onOpenChange, title, description, confirmLabel, destructive, onConfirm }: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const change = (next: boolean) => {
    if (!next) setError(null)
    onOpenChange(next)
  }
  const confirm = async () => {
    setBusy(true)
    setError(null)
    try {
      await onConfirm()
      change(false)
    } catch (thrown) {
      setError(errorMessage(thrown))
    } finally {
      setBusy(false)
    }
  }
  return (
    <AlertDialogPrimitive.Root open={open} onOpenChange={change}>
      <AlertDialogPrimitive.Portal>
        <AlertDialogPrimitive.Overlay className={overlayClass} />
        <AlertDialogPrimitive.Content className={contentClass}>
          <AlertDialogPrimitive.Title className="text-lg font-semibold">{title}</AlertDialogPrimitive.Title>
          <AlertDialogPrimitive.Description className="mt-2 text-sm text-muted">{description}</AlertDialogPrimitive.Description>
          {error && <ErrorMessage className="mt-4" error={error} />}
          <div className="mt-5 flex flex-wrap justify-end gap-2">
            <AlertDialogPrimitive.Cancel asChild>
              <Button variant="secondary">Cancel</Button>
            </AlertDialogPrimitive.Cancel>
            <Button variant={destructive ? 'danger' : 'primary'} loading={busy} onClick={() => void confirm()}>
              {confirmLabel}
            </Button>
          </div>
        </AlertDialogPrimitive.Content>
      </AlertDialogPrimitive.Portal>
    </AlertDialogPrimitive.Root>
  )
}

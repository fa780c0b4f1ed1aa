import type { ReactNode } from 'react'
import { Button } from '../../components/Button.tsx'
import { CopyButton } from '../../components/CopyButton.tsx'
import { Dialog } from '../../components/Dialog.tsx'

export interface SecretDialogProps {
  /** The secret; null keeps the dialog closed. */
  secret: string | null
  title: string
  /** Why it is shown only now. */
  description: string
  copyLabel: string
  /** The test id of the secret's text, which browser tests read. */
  testId: string
  /** Shown above the secret (e.g. the key's name). */
  children?: ReactNode
  onClose: () => void
}

/** A secret shown once, when it is created (an API key, a webhook's signing secret), with a copy button. */
export function SecretDialog({ secret, title, description, copyLabel, testId, children, onClose }: SecretDialogProps) {
  return (
    <Dialog
      open={secret !== null}
      onOpenChange={(open) => !open && onClose()}
      title={title}
      description={description}
      footer={<Button onClick={onClose}>Done</Button>}
    >
      {secret && (
        <div className="flex flex-col gap-3">
          {children}
          <code data-testid={testId} className="block rounded-md border border-line bg-gray-50 p-3 text-sm">
            {secret}
          </code>
          <div>
            <CopyButton value={secret} label={copyLabel} />
          </div>
        </div>
      )}
    </Dialog>
  )
}

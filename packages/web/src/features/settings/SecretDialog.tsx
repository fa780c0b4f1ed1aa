import { Button } from '../../components/Button.tsx'
import { CopyButton } from '../../components/CopyButton.tsx'
import { Dialog } from '../../components/Dialog.tsx'

/** A secret shown once (a webhook's signing secret), with a copy button. */
export function SecretDialog({ secret, title, onClose }: { secret: string | null; title: string; onClose: () => void }) {
  return (
    <Dialog
      open={secret !== null}
      onOpenChange={(open) => !open && onClose()}
      title={title}
      description="This is the only time the secret is shown. Your receiver checks each delivery's signature with it."
      footer={<Button onClick={onClose}>Done</Button>}
    >
      {secret && (
        <div className="flex flex-col gap-3">
          <code data-testid="shown-secret" className="block rounded-md border border-line bg-gray-50 p-3 text-sm">
            {secret}
          </code>
          <div>
            <CopyButton value={secret} label="Copy secret" />
          </div>
        </div>
      )}
    </Dialog>
  )
}

import * as Menu from '@radix-ui/react-dropdown-menu'
import { useState } from 'react'
import { buttonClass, ConfirmDialog, useToast } from '../../components/index.ts'
import { useVoidDocument, type DocumentDetail } from './queries.ts'

/** The actions one rarely takes, kept out of the way below the signers: voiding a document out for signature. */
export function MoreActions({ document }: { document: DocumentDetail }) {
  const toast = useToast()
  const voidDocument = useVoidDocument()
  const [confirming, setConfirming] = useState(false)
  if (document.status !== 'sent') return null
  return (
    <div>
      <Menu.Root>
        <Menu.Trigger className={buttonClass('secondary', 'sm')}>More actions ▾</Menu.Trigger>
        <Menu.Portal>
          <Menu.Content align="start" sideOffset={4} className="z-50 min-w-48 rounded-md border border-line bg-white p-1 shadow-lg">
            <Menu.Item
              className="flex cursor-default items-center rounded px-2 py-2 text-sm text-red-700 outline-none select-none data-[highlighted]:bg-red-50"
              onSelect={() => setConfirming(true)}
            >
              Void document…
            </Menu.Item>
          </Menu.Content>
        </Menu.Portal>
      </Menu.Root>
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title="Void this document?"
        description="Signers can no longer open or sign it. This cannot be undone."
        confirmLabel="Void document"
        destructive
        onConfirm={async () => {
          await voidDocument.mutateAsync(document.id)
          toast({ title: 'Document voided', tone: 'success' })
        }}
      />
    </div>
  )
}

import * as Menu from '@radix-ui/react-dropdown-menu'
import { useState } from 'react'
import { buttonClass } from '../../components/index.ts'
import type { DocumentDetail } from './queries.ts'
import { VoidDialog } from './VoidDialog.tsx'

/** The actions one rarely takes, kept out of the way below the signers: voiding a document out for signature. */
export function MoreActions({ document }: { document: DocumentDetail }) {
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
      <VoidDialog documentId={document.id} open={confirming} onOpenChange={setConfirming} />
    </div>
  )
}

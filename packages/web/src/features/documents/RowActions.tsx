import { useState } from 'react'
import { Button, ConfirmDialog, useToast } from '../../components/index.ts'
import { errorMessage } from '../../api/client.ts'
import { download, fileNameOf, useResendInvitation, type DocumentListItem } from './queries.ts'
import { VoidDialog } from './VoidDialog.tsx'

/** What one can do with a document from the list: download it once completed; resend or void it while it waits. */
export function RowActions({ document }: { document: DocumentListItem }) {
  if (document.status === 'completed') return <DownloadAction document={document} />
  if (document.status !== 'sent') return <span className="hidden sm:block" />
  return (
    <div className="flex flex-wrap gap-2 sm:justify-end">
      <ResendAction document={document} />
      <VoidAction document={document} />
    </div>
  )
}

function DownloadAction({ document }: { document: DocumentListItem }) {
  const toast = useToast()
  const [busy, setBusy] = useState(false)
  const get = async () => {
    setBusy(true)
    try {
      await download(document.id, 'signed-file', fileNameOf(document.title))
    } catch (error) {
      toast({ title: 'The signed PDF could not be downloaded', description: errorMessage(error), tone: 'error' })
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="sm:text-right">
      <Button size="sm" variant="secondary" loading={busy} onClick={() => void get()} aria-label={`Download ${document.title}`}>
        Download
      </Button>
    </div>
  )
}

/** Everyone invited who has not signed yet gets a new link (the earlier one stops working), after a confirmation. */
function ResendAction({ document }: { document: DocumentListItem }) {
  const toast = useToast()
  const resend = useResendInvitation()
  const [confirming, setConfirming] = useState(false)
  // A signer still waiting for their step in a signing order has no invitation to send again.
  const waiting = document.recipients.filter((r) => (r.status === 'pending' || r.status === 'viewed') && !r.waiting)
  if (waiting.length === 0) return null
  const names = waiting.map((r) => r.name ?? r.email).join(', ')
  return (
    <>
      <Button size="sm" variant="secondary" onClick={() => setConfirming(true)} aria-label={`Resend ${document.title}`}>
        Resend
      </Button>
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title="Send the invitation again?"
        description={`${names} ${waiting.length === 1 ? 'gets' : 'get'} a new signing link by e-mail; the earlier link stops working.`}
        confirmLabel="Resend"
        onConfirm={async () => {
          for (const signer of waiting) await resend.mutateAsync({ documentId: document.id, signerId: signer.id })
          toast({ title: `Invitation sent again to ${names}`, tone: 'success' })
        }}
      />
    </>
  )
}

function VoidAction({ document }: { document: DocumentListItem }) {
  const [confirming, setConfirming] = useState(false)
  return (
    <>
      <Button size="sm" variant="danger-secondary" onClick={() => setConfirming(true)} aria-label={`Void ${document.title}`}>
        Void
      </Button>
      <VoidDialog documentId={document.id} open={confirming} onOpenChange={setConfirming} />
    </>
  )
}

import { ConfirmDialog, useToast } from '../../components/index.ts'
import { useVoidDocument } from './queries.ts'

/** The one confirmation before voiding, from a list row or the document page's menu. */
export function VoidDialog({ documentId, open, onOpenChange }: { documentId: string; open: boolean; onOpenChange: (open: boolean) => void }) {
  const toast = useToast()
  const voidDocument = useVoidDocument()
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Void this document?"
      description="Signers can no longer open or sign it. This cannot be undone."
      confirmLabel="Void document"
      destructive
      onConfirm={async () => {
        await voidDocument.mutateAsync(documentId)
        toast({ title: 'Document voided', tone: 'success' })
      }}
    />
  )
}

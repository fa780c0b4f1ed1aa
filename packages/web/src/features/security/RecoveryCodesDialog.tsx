import { Button } from '../../components/Button.tsx'
import { CopyButton } from '../../components/CopyButton.tsx'
import { Dialog } from '../../components/Dialog.tsx'
import { useMe } from '../../auth/session.ts'

/**
 * New recovery codes, shown this once: copy them or download them as a text file. Each signs
 * the person in once in place of their authenticator app or passkey.
 */
export function RecoveryCodesDialog({ codes, onDone }: { codes: string[] | null; onDone: () => void }) {
  const me = useMe()
  const text = codes ? recoveryCodesText(codes, me.user.email) : ''
  return (
    <Dialog
      open={codes !== null}
      onOpenChange={(open) => !open && onDone()}
      title="Save your recovery codes now"
      description="They are shown only this once. If you lose your authenticator app or passkey, each code signs you in one time. Keep them somewhere safe, such as your password manager."
      footer={<Button onClick={onDone}>I have saved them</Button>}
    >
      {codes && (
        <div className="flex flex-col gap-3">
          <ol
            data-testid="recovery-codes"
            aria-label="Recovery codes"
            className="grid grid-cols-2 gap-x-4 gap-y-1.5 rounded-md border border-line bg-gray-50 p-3 font-mono text-sm"
          >
            {codes.map((code) => (
              <li key={code}>{code}</li>
            ))}
          </ol>
          <div className="flex flex-wrap gap-2">
            <CopyButton value={codes.join('\n')} label="Copy the codes" />
            <Button size="sm" variant="secondary" onClick={() => downloadText('signet-recovery-codes.txt', text)}>
              Download as a text file
            </Button>
          </div>
        </div>
      )}
    </Dialog>
  )
}

function recoveryCodesText(codes: string[], email: string): string {
  return [
    `Signet recovery codes for ${email} (${location.host})`,
    `Made ${new Date().toLocaleString()}. Each code signs you in once, in place of your authenticator app or passkey.`,
    'Making new codes in Account → Security cancels these.',
    '',
    ...codes,
    '',
  ].join('\n')
}

function downloadText(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }))
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

import { useState } from 'react'
import { Badge } from '../../components/Badge.tsx'
import { Button } from '../../components/Button.tsx'
import { FormDialog } from '../../components/Dialog.tsx'
import { Card } from '../../components/Card.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { formatDate, formatDateTime } from '../../lib/format.ts'
import { passkeyErrorText, passkeysSupported } from '../../lib/passkeys.ts'
import { placeError } from '../../lib/people-text.ts'
import { PasswordDialog } from './PasswordDialog.tsx'
import { useAddPasskey, useRemovePasskey, type PasskeyView, type TwoFactorStatus } from './queries.ts'
import { useShowRecoveryCodes } from './recovery-codes-context.tsx'

/** Passkeys: a second step after the password, or a sign-in on their own. Listed, added (named), removed. */
export function PasskeysCard({ status }: { status: TwoFactorStatus }) {
  const [adding, setAdding] = useState(false)
  const [removing, setRemoving] = useState<PasskeyView | null>(null)
  const showRecoveryCodes = useShowRecoveryCodes()
  const remove = useRemovePasskey()
  const supported = passkeysSupported()
  return (
    <Card
      title="Passkeys"
      description="Your fingerprint, face or screen lock on this device, your phone, or a security key. A passkey also signs you in on its own, without your password."
      actions={
        supported ? (
          <Button size="sm" onClick={() => setAdding(true)}>
            Add a passkey
          </Button>
        ) : undefined
      }
    >
      {!supported && <p className="mb-3 text-sm text-muted">This browser cannot make or use passkeys. Open the dashboard in a current browser to add one.</p>}
      {status.passkeys.length === 0 ? (
        <p className="text-sm text-muted">No passkeys yet.</p>
      ) : (
        <Table caption="Your passkeys">
          <THead>
            <Tr>
              <Th>Name</Th>
              <Th className="hidden sm:table-cell">Added</Th>
              <Th className="hidden sm:table-cell">Last used</Th>
              <ActionsTh />
            </Tr>
          </THead>
          <TBody>
            {status.passkeys.map((passkey) => (
              <Tr key={passkey.id}>
                <Td>
                  <span className="font-medium [overflow-wrap:anywhere]">{passkey.name}</span>
                  {passkey.synced && (
                    <Badge tone="info" className="ml-2">
                      Synced
                    </Badge>
                  )}
                  <span className="block text-xs text-muted sm:hidden">
                    Added {formatDate(passkey.created_at)} · {passkey.last_used_at ? `used ${formatDateTime(passkey.last_used_at)}` : 'not used yet'}
                  </span>
                </Td>
                <Td className="hidden whitespace-nowrap sm:table-cell">{formatDate(passkey.created_at)}</Td>
                <Td className="hidden whitespace-nowrap sm:table-cell">{passkey.last_used_at ? formatDateTime(passkey.last_used_at) : 'Not used yet'}</Td>
                <Td className="text-right">
                  <Button size="sm" variant="danger-secondary" onClick={() => setRemoving(passkey)} aria-label={`Remove the passkey ${passkey.name}`}>
                    Remove
                  </Button>
                </Td>
              </Tr>
            ))}
          </TBody>
        </Table>
      )}
      <AddPasskeyDialog
        open={adding}
        onOpenChange={setAdding}
        onAdded={(recoveryCodes) => {
          // Recovery codes come with a first second step.
          if (recoveryCodes) showRecoveryCodes(recoveryCodes)
        }}
      />
      <PasswordDialog
        open={removing !== null}
        onOpenChange={(open) => !open && setRemoving(null)}
        formId="remove-passkey"
        title={`Remove the passkey “${removing?.name ?? ''}”?`}
        description="It stops working here at once (delete it from the device too). With no second step left, your recovery codes are deleted too."
        submitLabel="Remove passkey"
        destructive
        onConfirm={async (password) => {
          if (!removing) return
          await remove.mutateAsync({ id: removing.id, password })
        }}
      />
    </Card>
  )
}

interface AddPasskeyDialogProps {
  open: boolean
  onOpenChange: (open: boolean) => void
  onAdded: (recoveryCodes: string[] | null) => void
}

/** Name and password first, then the browser's prompt makes the passkey, then the server checks and keeps it. */
function AddPasskeyDialog({ open, onOpenChange, onAdded }: AddPasskeyDialogProps) {
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const add = useAddPasskey()
  const change = (next: boolean) => {
    if (!next) {
      setName('')
      setPassword('')
      add.reset()
    }
    onOpenChange(next)
  }
  const submit = async () => {
    // Awaited, not an onSuccess callback: in the workspace's gate, the refresh that turns the second
    // step on replaces this card with the workspace, and its recovery codes must still be shown.
    // A refusal is shown from add.error.
    const added = await add.mutateAsync({ name: name.trim(), password }).catch(() => null)
    if (!added) return
    change(false)
    onAdded(added.recovery_codes)
  }
  const errors = placeError(add.error, ['name', 'password'])
  return (
    <FormDialog
      open={open}
      onOpenChange={change}
      title="Add a passkey"
      description="After you confirm, your browser asks where to keep the passkey and to unlock it."
      formId="add-passkey"
      submitLabel="Continue"
      pending={add.isPending}
      submitDisabled={name.trim() === '' || password === ''}
      onSubmit={() => void submit()}
    >
      <div className="flex flex-col gap-4">
        <Field label="Name" hint="So you can tell it apart later, e.g. “Work laptop” or “Blue security key”." error={errors.under('name')} required>
          <Input autoComplete="off" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Your password" error={errors.under('password')} required>
          <Input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        {errors.above && <ErrorMessage error={passkeyErrorText(add.error)} />}
      </div>
    </FormDialog>
  )
}

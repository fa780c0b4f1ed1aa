import { useState } from 'react'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { PasswordDialog } from './PasswordDialog.tsx'
import { useRegenerateRecoveryCodes, type TwoFactorStatus } from './queries.ts'
import { useShowRecoveryCodes } from './recovery-codes-context.tsx'

const FEW_LEFT = 3

/** How many one-time recovery codes are left, and new ones (the old ones stop working). */
export function RecoveryCodesCard({ status }: { status: TwoFactorStatus }) {
  const [confirming, setConfirming] = useState(false)
  const showRecoveryCodes = useShowRecoveryCodes()
  const regenerate = useRegenerateRecoveryCodes()
  const left = status.recovery_codes_left
  return (
    <Card title="Recovery codes" description="Each signs you in once if you lose your authenticator app or passkeys.">
      {status.enabled ? (
        <div className="flex flex-col items-start gap-3">
          <p className={left <= FEW_LEFT ? 'text-sm font-medium text-red-800' : 'text-sm'}>
            {left === 0 ? 'No recovery codes left. Make new ones now.' : `${left} of 10 codes left.${left <= FEW_LEFT ? ' Make new ones soon.' : ''}`}
          </p>
          <Button variant="secondary" onClick={() => setConfirming(true)}>
            Make new recovery codes
          </Button>
        </div>
      ) : (
        <p className="text-sm text-muted">You get ten codes when you set up an authenticator app or a passkey.</p>
      )}
      <PasswordDialog
        open={confirming}
        onOpenChange={setConfirming}
        formId="new-recovery-codes"
        title="Make new recovery codes?"
        description="You get ten new codes; the ones you have now stop working."
        submitLabel="Make new codes"
        onConfirm={async (password) => showRecoveryCodes((await regenerate.mutateAsync(password)).recovery_codes)}
      />
    </Card>
  )
}

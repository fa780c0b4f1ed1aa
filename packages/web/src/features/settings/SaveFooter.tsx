import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'

interface SaveFooterProps {
  saving: boolean
  /** Why the last save failed; null when it did not (or when the form shows the refusal under one of its controls). */
  error: Error | string | null
  /** What did not happen, such as "The reminders were not saved". */
  errorTitle: string
}

/** The foot of a settings form: why the last save failed, if it did, and its Save button. */
export function SaveFooter({ saving, error, errorTitle }: SaveFooterProps) {
  return (
    <>
      {error && <ErrorMessage title={errorTitle} error={error} />}
      <div>
        <Button type="submit" loading={saving}>
          Save
        </Button>
      </div>
    </>
  )
}

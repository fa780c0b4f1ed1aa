import { useState, type FormEvent } from 'react'
import { api, errorMessage, unwrap } from '../api/client.ts'
import type { Me } from '../auth/session.ts'
import { Button } from '../components/Button.tsx'
import { Field } from '../components/Field.tsx'
import { Input } from '../components/Input.tsx'

export function CreateWorkspaceForm({ onCreated }: { onCreated: (me: Me) => Promise<void> }) {
  const [name, setName] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await onCreated(await unwrap(api.POST('/workspaces', { body: { name } })))
    } catch (thrown) {
      setError(errorMessage(thrown))
    } finally {
      setBusy(false)
    }
  }
  return (
    <form onSubmit={(event) => void submit(event)} className="flex flex-col gap-4">
      <Field label="Workspace name" error={error} required>
        <Input value={name} onChange={(event) => setName(event.target.value)} autoComplete="organization" />
      </Field>
      <div>
        <Button type="submit" loading={busy}>
          Create workspace
        </Button>
      </div>
    </form>
  )
}

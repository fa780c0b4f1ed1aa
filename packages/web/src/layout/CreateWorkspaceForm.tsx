import { useState, type FormEvent } from 'react'
import { useCreateWorkspace } from '../auth/session.ts'
import { Button } from '../components/Button.tsx'
import { Field } from '../components/Field.tsx'
import { Input } from '../components/Input.tsx'
import { fieldErrorText } from '../lib/people-text.ts'

/** A new workspace, entered at once; `onCreated` runs after (the app already shows the workspace). */
export function CreateWorkspaceForm({ onCreated }: { onCreated?: () => void }) {
  const [name, setName] = useState('')
  const create = useCreateWorkspace()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate(name, { onSuccess: onCreated })
  }
  return (
    <form onSubmit={submit} className="flex flex-col gap-4">
      <Field label="Workspace name" error={fieldErrorText(create.error)} required>
        <Input value={name} onChange={(event) => setName(event.target.value)} autoComplete="organization" />
      </Field>
      <div>
        <Button type="submit" loading={create.isPending}>
          Create workspace
        </Button>
      </div>
    </form>
  )
}

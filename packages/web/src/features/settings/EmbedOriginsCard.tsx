import { useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { useMe } from '../../auth/session.ts'
import { Card } from '../../components/Card.tsx'
import { Field } from '../../components/Field.tsx'
import { Textarea } from '../../components/Input.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { useToast } from '../../components/Toast.tsx'
import { embedOriginsQuery, useSetEmbedOrigins, type EmbedOrigins } from './queries.ts'
import { SaveFooter } from './SaveFooter.tsx'

/** One origin a line, as typed; blank lines are nothing. The server checks each and says which one it refuses. */
const originsOf = (text: string): EmbedOrigins =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)

/** Settings → Integration and API: the origins whose pages may frame this workspace's embedded signer pages. */
export function EmbedOriginsCard() {
  const me = useMe()
  const setting = useQuery(embedOriginsQuery)
  return (
    <Card title="Embedded signing" className="mt-5">
      <QueryView query={setting} loadingLabel="Loading the embed origins…">
        {({ origins }) => (
          <>
            <p className="text-sm text-muted">
              Your app can show a signer&apos;s page inside its own pages with a single-use URL from{' '}
              <code className="rounded bg-gray-100 px-1">POST /api/v1/documents/&#123;id&#125;/signers/&#123;signer_id&#125;/embed</code>. Browsers show it only
              on the origins listed here; everywhere else it stays unframeable.
            </p>
            {me.abilities.manage_api_keys ? (
              <EmbedOriginsForm saved={origins} />
            ) : (
              <p className="mt-2 text-sm">{origins.length > 0 ? origins.join(', ') : 'No origins'}. Only owners and admins of this workspace change them.</p>
            )}
          </>
        )}
      </QueryView>
    </Card>
  )
}

function EmbedOriginsForm({ saved }: { saved: EmbedOrigins }) {
  const toast = useToast()
  const [text, setText] = useState(saved.join('\n'))
  const save = useSetEmbedOrigins()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate(originsOf(text), {
      onSuccess: ({ origins }) => {
        setText(origins.join('\n'))
        toast({ title: 'Embed origins saved', tone: 'success' })
      },
    })
  }
  return (
    <form onSubmit={submit} noValidate className="mt-4 flex flex-col gap-4 border-t border-line pt-4">
      <Field label="Allowed origins" hint="One a line, such as https://app.example.com (or http://localhost:3000 while developing); at most 20.">
        <Textarea value={text} onChange={(event) => setText(event.target.value)} rows={4} spellCheck={false} className="font-mono sm:max-w-lg" />
      </Field>
      <SaveFooter saving={save.isPending} error={save.error} errorTitle="The embed origins were not saved" />
    </form>
  )
}

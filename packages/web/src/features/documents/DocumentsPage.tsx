import { useQuery } from '@tanstack/react-query'
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router'
import { useEffect, useState } from 'react'
import { Button, EmptyState, Input, PageHeader, Pagination, QueryView } from '../../components/index.ts'
import { DocumentRows } from './DocumentRows.tsx'
import { documentCountsQuery, documentListQuery, PAGE_SIZE } from './queries.ts'
import { StatusTabs } from './StatusTabs.tsx'

const route = getRouteApi('/signed-in/documents')
/** Long enough not to ask the server for every letter typed, short enough to feel immediate. */
const SEARCH_DELAY_MS = 300

/** /app/documents: every document of the workspace, by status tab, searched as one types (both in the address). */
export function DocumentsPage() {
  const { status, search, offset = 0 } = route.useSearch()
  const navigate = useNavigate()
  const documents = useQuery(documentListQuery({ status, search, offset }))
  const counts = useQuery(documentCountsQuery(search))

  return (
    <>
      <PageHeader
        title="Documents"
        description="Everything sent for signature from this workspace."
        actions={
          <Button asChild>
            <Link to="/send">Send a document</Link>
          </Button>
        }
      />
      <SearchBox search={search} />
      <StatusTabs current={status} counts={counts.data} />
      <QueryView query={documents} loadingLabel="Loading documents…" errorTitle="Documents could not be loaded">
        {(data) =>
          data.documents.length === 0 ? (
            <NoDocuments filtered={Boolean(status || search)} onClear={() => void navigate({ to: '/documents', search: {} })} />
          ) : (
            <>
              <DocumentRows documents={data.documents} />
              <Pagination
                offset={data.offset}
                limit={PAGE_SIZE}
                total={data.total ?? data.offset + data.documents.length + (data.has_more ? 1 : 0)}
                onChange={(next) => void navigate({ to: '/documents', search: (prev) => ({ ...prev, offset: next || undefined }) })}
              />
            </>
          )
        }
      </QueryView>
    </>
  )
}

/** The search field: what is typed goes to the address (and the server) once typing pauses. */
function SearchBox({ search }: { search: string | undefined }) {
  const navigate = useNavigate()
  const [typed, setTyped] = useState(search ?? '')
  // Back, forward and "Clear filters" change the address: the field follows it (set while
  // rendering, React's way to adjust state to a prop), unless it already says the same.
  const [followed, setFollowed] = useState(search)
  if (followed !== search) {
    setFollowed(search)
    if ((typed.trim() || undefined) !== search) setTyped(search ?? '')
  }
  useEffect(() => {
    const next = typed.trim() || undefined
    if (next === search) return
    // replace: each pause in typing is not a step of the Back button.
    const timer = setTimeout(
      () => void navigate({ to: '/documents', search: (prev) => ({ ...prev, search: next, offset: undefined }), replace: true }),
      SEARCH_DELAY_MS,
    )
    return () => clearTimeout(timer)
  }, [typed, search, navigate])
  return (
    <div role="search" className="mb-3">
      <Input
        type="search"
        aria-label="Search documents"
        value={typed}
        onChange={(event) => setTyped(event.target.value)}
        placeholder="Search by title or signer e-mail"
      />
    </div>
  )
}

function NoDocuments({ filtered, onClear }: { filtered: boolean; onClear: () => void }) {
  if (filtered) {
    return (
      <EmptyState
        title="No documents match"
        description="Try another tab or search."
        action={
          <Button variant="secondary" onClick={onClear}>
            Clear filters
          </Button>
        }
      />
    )
  }
  return (
    <EmptyState
      title="No documents yet"
      description="Send a template to a signer and it shows up here."
      action={
        <Button asChild>
          <Link to="/send">Send a document</Link>
        </Button>
      }
    />
  )
}

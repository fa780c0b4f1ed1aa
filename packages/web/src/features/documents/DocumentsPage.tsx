import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router'
import { useEffect, useState } from 'react'
import { Badge, Button, EmptyState, Field, Input, PageHeader, Pagination, QueryView, Select, StatusBadge, TBody, THead, Table, Td, Th, Tr } from '../../components/index.ts'
import { formatDateTime } from '../../lib/format.ts'
import { DOCUMENT_STATUSES, listDocuments, PAGE_SIZE } from './documents-api.ts'

const route = getRouteApi('/signed-in/documents')
const ALL = 'all'
const STATUS_OPTIONS = [{ value: ALL, label: 'All statuses' }, ...DOCUMENT_STATUSES.map((s) => ({ value: s, label: s[0]?.toUpperCase() + s.slice(1) }))]

/** /app/documents: every document of the workspace, filtered by status, searched by title or signer e-mail. */
export function DocumentsPage() {
  const { status, search, offset = 0 } = route.useSearch()
  const navigate = useNavigate()
  const documents = useQuery({
    queryKey: ['documents', { status, search, offset }],
    queryFn: () => listDocuments({ status, search, offset }),
    placeholderData: keepPreviousData,
  })
  const [typed, setTyped] = useState(search ?? '')
  useEffect(() => setTyped(search ?? ''), [search])
  const filter = (next: { status?: string | undefined; search?: string | undefined }) =>
    void navigate({ to: '/documents', search: (prev) => ({ ...prev, ...next, offset: undefined }) })

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
      <form
        role="search"
        className="mb-4 grid gap-3 sm:grid-cols-[1fr_12rem_auto] sm:items-end"
        onSubmit={(event) => {
          event.preventDefault()
          filter({ search: typed.trim() || undefined })
        }}
      >
        <Field label="Search">
          <Input type="search" value={typed} onChange={(event) => setTyped(event.target.value)} placeholder="Title or signer e-mail" />
        </Field>
        <Field label="Status">
          <Select value={status ?? ALL} onValueChange={(value) => filter({ status: value === ALL ? undefined : value })} options={STATUS_OPTIONS} />
        </Field>
        <Button type="submit" variant="secondary">
          Search
        </Button>
      </form>
      <QueryView query={documents} loadingLabel="Loading documents…" errorTitle="Documents could not be loaded">
        {(data) =>
          data.documents.length === 0 ? (
            status || search ? (
              <EmptyState
                title="No documents match"
                description="Try another status or search."
                action={
                  <Button variant="secondary" onClick={() => void navigate({ to: '/documents', search: {} })}>
                    Clear filters
                  </Button>
                }
              />
            ) : (
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
          ) : (
            <>
              <Table caption="Documents">
                <THead>
                  <Tr>
                    <Th>Title</Th>
                    <Th>Status</Th>
                    <Th>Sent</Th>
                    <Th>Updated</Th>
                    <Th>Expires</Th>
                  </Tr>
                </THead>
                <TBody>
                  {data.documents.map((document) => (
                    <Tr key={document.id}>
                      <Td className="min-w-44 font-medium">
                        <Link to="/documents/$id" params={{ id: document.id }} className="text-brand-700 underline">
                          {document.title}
                        </Link>
                        {document.is_verified_badge && (
                          <Badge tone="success" className="ml-2">
                            sealed
                          </Badge>
                        )}
                      </Td>
                      <Td>
                        <StatusBadge status={document.status} />
                      </Td>
                      <Td className="whitespace-nowrap">{formatDateTime(document.created_at)}</Td>
                      <Td className="whitespace-nowrap">{formatDateTime(document.updated_at)}</Td>
                      <Td className="whitespace-nowrap">{formatDateTime(document.expires_at)}</Td>
                    </Tr>
                  ))}
                </TBody>
              </Table>
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

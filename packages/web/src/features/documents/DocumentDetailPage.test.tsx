// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createMemoryHistory, createRootRoute, createRoute, createRouter, RouterProvider } from '@tanstack/react-router'
import { cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ToastProvider } from '../../components/Toast.tsx'
import { DocumentDetailPage } from './DocumentDetailPage.tsx'

const SENT = '2026-11-20T09:00:00.000Z'

/** The fake server: GET /documents/doc-lease answers `document` (a two-step lease, its second signer not invited yet), its audit trail one event. */
const server = vi.hoisted(() => {
  const state = { document: {} as Record<string, unknown> }
  // openapi-fetch takes fetch when its client is created, and resolves /api/v1 against the page's address.
  ;(window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL('http://signet.test/app/documents/doc-lease')
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init)
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
    const path = new URL(request.url).pathname
    if (path === '/api/v1/documents/doc-lease') return json(200, state.document)
    if (path === '/api/v1/documents/doc-lease/audit') {
      return json(200, {
        document_id: 'doc-lease',
        chain_valid: true,
        events: [{ seq: 1, event: 'document.sent', at: '2026-11-20T09:00:00.000Z', actor: null }],
      })
    }
    return json(404, { error: 'Not found.', code: 'not_found' })
  }
  return state
})

const signer = (role: number, name: string, change: Record<string, unknown>) => ({
  id: `signer-${role}`,
  role,
  name,
  email: `${name.split(' ')[0]?.toLowerCase()}@example.com`,
  status: 'pending',
  auth_required: false,
  auth_verified: false,
  viewed_at: null,
  signed_at: null,
  declined_at: null,
  ...change,
})

const lease = (extension: Record<string, unknown> = {}) => ({
  id: 'doc-lease',
  title: 'Lease',
  status: 'sent',
  signers: [signer(0, 'Ann Smith', { order: 1, invited_at: SENT }), signer(1, 'Bo Lee', { order: 2, invited_at: null })],
  created_at: SENT,
  updated_at: SENT,
  expires_at: null,
  voided_reason: null,
  signed_pdf_status: null,
  signed_pdf_error: null,
  ...extension,
})

/** The document page at /app/documents/doc-lease, in a router whose route ids match the app's (getRouteApi('/signed-in/documents/$id')). */
function renderDocumentPage() {
  const root = createRootRoute()
  const signedIn = createRoute({ getParentRoute: () => root, id: 'signed-in' })
  const documents = createRoute({ getParentRoute: () => signedIn, path: 'documents' })
  const documentPage = createRoute({ getParentRoute: () => signedIn, path: 'documents/$id', component: DocumentDetailPage })
  const router = createRouter({
    routeTree: root.addChildren([signedIn.addChildren([documents, documentPage])]),
    history: createMemoryHistory({ initialEntries: ['/documents/doc-lease'] }),
  })
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  render(
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <RouterProvider router={router} />
      </ToastProvider>
    </QueryClientProvider>,
  )
}

/** The Status card's rows: each term with its value. */
async function statusRows(): Promise<Record<string, string>> {
  const card = (await screen.findByRole('heading', { name: 'Status' })).closest('section') as HTMLElement
  const terms = [...card.querySelectorAll('dt')]
  return Object.fromEntries(terms.map((term) => [term.textContent, term.nextElementSibling?.textContent ?? '']))
}

afterEach(cleanup)

describe('the document page', () => {
  it("shows the document's reminder schedule in the Status card", async () => {
    server.document = lease({ reminders: { first_after_days: 2, every_days: 3, max: 2 } })
    renderDocumentPage()
    expect(await statusRows()).toMatchObject({ Reminders: '2 days after the invitation, then every 3 days, at most 2 reminders' })
  })

  it('says nothing of reminders when the document has none', async () => {
    server.document = lease()
    renderDocumentPage()
    expect(Object.keys(await statusRows())).toEqual(['Status', 'Sent', 'Updated', 'Expires'])
    expect(screen.queryByText(/Reminders|reminder/)).toBeNull()
  })

  it('badges the signer still waiting for their step "Not invited yet", the invited one "Not opened yet"', async () => {
    server.document = lease()
    renderDocumentPage()
    const signers = (await screen.findByRole('heading', { name: 'Signers' })).closest('section') as HTMLElement
    const rows = within(signers).getAllByRole('listitem')
    expect(within(rows[0] as HTMLElement).getByText('Not opened yet')).toBeTruthy()
    expect(within(rows[1] as HTMLElement).getByText('Not invited yet')).toBeTruthy()
    expect(within(rows[1] as HTMLElement).queryByText('Not opened yet')).toBeNull()
  })
})

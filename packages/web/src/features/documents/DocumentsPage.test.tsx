// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createMemoryHistory, createRootRoute, createRoute, createRouter, RouterProvider } from '@tanstack/react-router'
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ToastProvider } from '../../components/Toast.tsx'
import { DocumentsPage } from './DocumentsPage.tsx'

/** The fake server: GET /documents answers two documents, GET /documents/counts the tabs' numbers; every request is recorded. */
const server = vi.hoisted(() => {
  const state = { requests: [] as URL[] }
  // openapi-fetch takes fetch when its client is created, and resolves /api/v1 against the page's address.
  ;(window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL('http://signet.test/app/documents')
  const signer = (name: string | null, email: string, status: string, role: number) => ({ id: `signer-${email}`, name, email, status, role })
  const times = { created_at: '2026-11-20T09:00:00.000Z', updated_at: '2026-11-21T09:00:00.000Z', expires_at: null, voided_reason: null }
  const list = {
    documents: [
      {
        id: 'doc-lease',
        title: 'Lease — Ann Lee',
        status: 'sent',
        is_verified_badge: false,
        ...times,
        recipients: [signer('Ann Lee', 'ann@example.com', 'signed', 0), signer(null, 'bo@example.com', 'viewed', 1)],
        signed_count: 1,
        signer_count: 2,
      },
      {
        id: 'doc-nda',
        title: 'NDA — Cy Park',
        status: 'completed',
        is_verified_badge: false,
        ...times,
        recipients: [signer('Cy Park', 'cy@example.com', 'signed', 0)],
        signed_count: 1,
        signer_count: 1,
      },
    ],
    total: 2,
    limit: 20,
    offset: 0,
    has_more: false,
  }
  const counts = { all: 7, by_status: { draft: 0, sent: 3, completed: 2, declined: 1, voided: 1 } }
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init)
    const url = new URL(request.url)
    state.requests.push(url)
    const body = url.pathname === '/api/v1/documents/counts' ? counts : list
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return state
})

/** The Documents page at /app/documents, in a router whose route ids match the app's (getRouteApi('/signed-in/documents')). */
function renderDocumentsPage() {
  const root = createRootRoute()
  const signedIn = createRoute({ getParentRoute: () => root, id: 'signed-in' })
  const documents = createRoute({
    getParentRoute: () => signedIn,
    path: 'documents',
    validateSearch: (search: Record<string, unknown>): { status?: string; search?: string; offset?: number } => ({
      status: typeof search.status === 'string' ? search.status : undefined,
      search: typeof search.search === 'string' ? search.search : undefined,
    }),
    component: DocumentsPage,
  })
  const documentPage = createRoute({ getParentRoute: () => signedIn, path: 'documents/$id' })
  const send = createRoute({ getParentRoute: () => signedIn, path: 'send' })
  const router = createRouter({
    routeTree: root.addChildren([signedIn.addChildren([documents, documentPage, send])]),
    history: createMemoryHistory({ initialEntries: ['/documents'] }),
  })
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  render(
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <RouterProvider router={router} />
      </ToastProvider>
    </QueryClientProvider>,
  )
  return router
}

afterEach(() => {
  cleanup()
  server.requests.length = 0
})

describe('the Documents list', () => {
  it('says who each document is for and how far it got', async () => {
    renderDocumentsPage()
    const rows = within(await screen.findByRole('list', { name: 'Documents' })).getAllByRole('listitem')
    expect(rows).toHaveLength(2)
    const [lease, nda] = rows as [HTMLElement, HTMLElement]
    expect(within(lease).getByRole('link', { name: 'Lease — Ann Lee' }).getAttribute('href')).toBe('/documents/doc-lease')
    expect(lease.textContent).toContain('Ann Lee, bo@example.com')
    expect(lease.textContent).toContain('1 of 2 signed')
    expect(within(lease).getByText('Waiting for signatures')).toBeTruthy()
    expect(nda.textContent).toContain('1 of 1 signed')
  })

  it('offers what each status allows: resend and void while waiting, download once completed', async () => {
    renderDocumentsPage()
    const [lease, nda] = within(await screen.findByRole('list', { name: 'Documents' })).getAllByRole('listitem') as [HTMLElement, HTMLElement]
    expect(
      within(lease)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Resend', 'Void'])
    expect(
      within(nda)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Download'])
  })

  it('has a tab per status with its count, the current one marked', async () => {
    renderDocumentsPage()
    const tabs = await screen.findByRole('navigation', { name: 'Document status' })
    await within(tabs).findByText('7')
    expect(
      within(tabs)
        .getAllByRole('link')
        .map((tab) => tab.textContent),
    ).toEqual(['All7', 'Waiting for signatures3', 'Completed2', 'Declined1', 'Voided or expired1'])
    expect(within(tabs).getByRole('link', { name: /^All/ }).getAttribute('aria-current')).toBe('page')
  })

  it('searches as one types, once typing pauses, with the search in the address', async () => {
    const router = renderDocumentsPage()
    await screen.findByRole('list', { name: 'Documents' })
    await userEvent.setup().type(screen.getByRole('searchbox', { name: 'Search documents' }), 'ann')
    await vi.waitFor(() => expect(router.state.location.search).toEqual({ search: 'ann' }))
    await vi.waitFor(() => expect(server.requests.some((url) => url.pathname === '/api/v1/documents' && url.searchParams.get('search') === 'ann')).toBe(true))
    // One search for the pause, not one per letter.
    expect(server.requests.filter((url) => url.searchParams.has('search')).map((url) => url.searchParams.get('search'))).not.toContain('a')
  })
})

// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { meQuery, type Me } from '../../auth/session.ts'
import { ToastProvider } from '../../components/Toast.tsx'
import { EmbedOriginsCard } from './EmbedOriginsCard.tsx'

/** The fake server: GET /settings/embed answers the saved origins, PUT saves them or answers `refusal`; every PUT body is recorded. */
const server = vi.hoisted(() => {
  const state = {
    saved: [] as string[],
    refusal: null as { status: number; body: unknown } | null,
    puts: [] as unknown[],
  }
  // openapi-fetch takes fetch when its client is created, and resolves /api/v1 against the page's address.
  ;(window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL('http://signet.test/app/settings/api-keys')
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init)
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
    if (new URL(request.url).pathname !== '/api/v1/settings/embed') return json(404, { error: 'Not found.', code: 'not_found' })
    if (request.method === 'GET') return json(200, { origins: state.saved })
    const body = (await request.json()) as { origins: string[] }
    state.puts.push(body)
    if (state.refusal) return json(state.refusal.status, state.refusal.body)
    state.saved = [...new Set(body.origins)]
    return json(200, { origins: state.saved })
  }
  return state
})

/** The card for someone whose role lets them manage API keys (owners and admins), as /me would say. */
function renderCard({ manage }: { manage: boolean }) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const me = { abilities: { manage_api_keys: manage }, user: { id: 'user-1' }, workspace: { id: 'org-1', name: 'Harbour' }, workspaces: [] }
  queryClient.setQueryData(meQuery.queryKey, me as unknown as Me)
  render(
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <EmbedOriginsCard />
      </ToastProvider>
    </QueryClientProvider>,
  )
}

const originsBox = () => screen.findByRole<HTMLTextAreaElement>('textbox', { name: 'Allowed origins' })

afterEach(() => {
  cleanup()
  server.saved = []
  server.refusal = null
  server.puts = []
})

describe('Settings → Embedded signing for an owner or admin', () => {
  it('shows the saved origins one a line, and saves the edited list with PUT /settings/embed', async () => {
    server.saved = ['https://app.example.com']
    const user = userEvent.setup()
    renderCard({ manage: true })
    expect((await originsBox()).value).toBe('https://app.example.com')

    await user.type(await originsBox(), '\n\n  http://localhost:3000  \nhttps://app.example.com')
    await user.click(screen.getByRole('button', { name: 'Save' }))

    await screen.findByText('Embed origins saved')
    expect(server.puts).toEqual([{ origins: ['https://app.example.com', 'http://localhost:3000', 'https://app.example.com'] }])
    // The list as the server kept it (without the repeat).
    expect((await originsBox()).value).toBe('https://app.example.com\nhttp://localhost:3000')
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it("shows the server's refusal above the button, and keeps the text to fix it", async () => {
    server.refusal = {
      status: 400,
      body: {
        error: '"http://app.example.com" uses plain http: an embed origin is https, or http only on localhost, 127.0.0.1 or [::1].',
        code: 'validation_failed',
        field: '/origins/0',
      },
    }
    const user = userEvent.setup()
    renderCard({ manage: true })
    await user.type(await originsBox(), 'http://app.example.com')
    await user.click(screen.getByRole('button', { name: 'Save' }))

    const alert = await screen.findByRole('alert')
    expect(within(alert).getByText('The embed origins were not saved')).toBeTruthy()
    expect(within(alert).getByText(/uses plain http/)).toBeTruthy()
    expect((await originsBox()).value).toBe('http://app.example.com')
    expect(screen.queryByText('Embed origins saved')).toBeNull()
  })
})

describe('Settings → Embedded signing for a member', () => {
  it('lists the origins read-only and says who changes them', async () => {
    server.saved = ['https://a.example', 'https://b.example']
    renderCard({ manage: false })
    await screen.findByText('https://a.example, https://b.example. Only owners and admins of this workspace change them.')
    expect(screen.queryByRole('textbox')).toBeNull()
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull()
  })
})

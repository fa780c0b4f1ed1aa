// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { meQuery, type Me } from '../../auth/session.ts'
import { ToastProvider } from '../../components/Toast.tsx'
import { SignerLanguageCard } from './SignerLanguageCard.tsx'

/** The fake server: GET /settings/signer-language answers the saved default, PUT saves it or answers `refusal`; every PUT body is recorded. */
const server = vi.hoisted(() => {
  const state = {
    saved: null as string | null,
    refusal: null as { status: number; body: unknown } | null,
    puts: [] as unknown[],
  }
  // openapi-fetch takes fetch when its client is created, and resolves /api/v1 against the page's address.
  ;(window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL('http://signet.test/app/settings/reminders')
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init)
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
    if (new URL(request.url).pathname !== '/api/v1/settings/signer-language') return json(404, { error: 'Not found.', code: 'not_found' })
    if (request.method === 'GET') return json(200, { language: state.saved })
    const body = (await request.json()) as { language: string | null }
    state.puts.push(body)
    if (state.refusal) return json(state.refusal.status, state.refusal.body)
    state.saved = body.language
    return json(200, body)
  }
  return state
})

/** The card for someone whose role gives them `manageBilling` (owners and admins), as /me would say. */
function renderCard({ manageBilling }: { manageBilling: boolean }) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const me = { abilities: { manage_billing: manageBilling }, user: { id: 'user-1' }, workspace: { id: 'org-1', name: 'Harbour' }, workspaces: [] }
  queryClient.setQueryData(meQuery.queryKey, me as unknown as Me)
  render(
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <SignerLanguageCard />
      </ToastProvider>
    </QueryClientProvider>,
  )
}

const languageSelect = () => screen.findByRole('combobox', { name: 'Default language' })

async function choose(user: ReturnType<typeof userEvent.setup>, label: string) {
  await user.click(await languageSelect())
  await user.click(screen.getByRole('option', { name: label }))
}

afterEach(() => {
  cleanup()
  server.saved = null
  server.refusal = null
  server.puts = []
})

describe('Settings → Signer language for an owner or admin', () => {
  it('shows the saved language, and saves another with PUT /settings/signer-language', async () => {
    server.saved = 'de'
    const user = userEvent.setup()
    renderCard({ manageBilling: true })
    expect((await languageSelect()).textContent).toBe('Deutsch (German)')

    await choose(user, 'Français (French)')
    await user.click(screen.getByRole('button', { name: 'Save' }))

    await screen.findByText('Signer language saved')
    expect(server.puts).toEqual([{ language: 'fr' }])
    expect(server.saved).toBe('fr')
    expect((await languageSelect()).textContent).toBe('Français (French)')
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('saves "no default" as null', async () => {
    server.saved = 'ja'
    const user = userEvent.setup()
    renderCard({ manageBilling: true })
    await choose(user, "No default: the signer's browser decides")
    await user.click(screen.getByRole('button', { name: 'Save' }))

    await screen.findByText('Signer language saved')
    expect(server.puts).toEqual([{ language: null }])
  })

  it("shows the server's refusal above the button, and keeps the choice to try again", async () => {
    server.refusal = { status: 403, body: { error: "Only the workspace's owners and admins can manage signer language settings.", code: 'forbidden' } }
    const user = userEvent.setup()
    renderCard({ manageBilling: true })
    await choose(user, 'Polski (Polish)')
    await user.click(screen.getByRole('button', { name: 'Save' }))

    const alert = await screen.findByRole('alert')
    expect(within(alert).getByText('The signer language was not saved')).toBeTruthy()
    expect(within(alert).getByText("Only the workspace's owners and admins can manage signer language settings.")).toBeTruthy()
    expect(server.puts).toEqual([{ language: 'pl' }])
    expect(screen.queryByText('Signer language saved')).toBeNull()
    expect((await languageSelect()).textContent).toBe('Polski (Polish)')
  })
})

describe('Settings → Signer language for a member', () => {
  it('shows the default read-only and says who changes it', async () => {
    server.saved = 'nl'
    renderCard({ manageBilling: false })
    await screen.findByText('Nederlands (Dutch). Only owners and admins of this workspace change it.')
    expect(screen.queryByRole('combobox')).toBeNull()
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull()
  })
})

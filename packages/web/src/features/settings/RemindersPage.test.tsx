// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { meQuery, type Me } from '../../auth/session.ts'
import { ToastProvider } from '../../components/Toast.tsx'
import { RemindersPage } from './RemindersPage.tsx'

/** The fake server: GET /settings/reminders answers the saved default, PUT saves it or answers `refusal`; every PUT body is recorded. */
const server = vi.hoisted(() => {
  const state = {
    saved: null as unknown,
    refusal: null as { status: number; body: unknown } | null,
    puts: [] as unknown[],
  }
  // openapi-fetch takes fetch when its client is created, and resolves /api/v1 against the page's address.
  ;(window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL('http://signet.test/app/settings/reminders')
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init)
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
    if (new URL(request.url).pathname !== '/api/v1/settings/reminders') return json(404, { error: 'Not found.', code: 'not_found' })
    if (request.method === 'GET') return json(200, { reminders: state.saved })
    const body = (await request.json()) as { reminders: unknown }
    state.puts.push(body)
    if (state.refusal) return json(state.refusal.status, state.refusal.body)
    state.saved = body.reminders
    return json(200, body)
  }
  return state
})

/** The Reminders page for someone whose role gives them `manageBilling` (owners and admins), as /me would say. */
function renderRemindersPage({ manageBilling }: { manageBilling: boolean }) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const me = { abilities: { manage_billing: manageBilling }, user: { id: 'user-1' }, workspace: { id: 'org-1', name: 'Harbour' }, workspaces: [] }
  queryClient.setQueryData(meQuery.queryKey, me as unknown as Me)
  render(
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <RemindersPage />
      </ToastProvider>
    </QueryClientProvider>,
  )
}

/** The text an input's aria-describedby points at (its Field's error and hint). */
const descriptionOf = (input: HTMLElement) =>
  (input.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ')

const numberIn = (name: string) => screen.getByRole<HTMLInputElement>('spinbutton', { name })
const remindSwitch = () => screen.getByRole('switch', { name: 'Remind signers who have not signed' })

async function typeNumber(user: ReturnType<typeof userEvent.setup>, name: string, value: string) {
  await user.clear(numberIn(name))
  await user.type(numberIn(name), value)
}

afterEach(() => {
  cleanup()
  server.saved = null
  server.refusal = null
  server.puts = []
})

describe('Settings → Reminders for an owner or admin', () => {
  it('turns reminders on with a schedule: the PUT body is exactly the three numbers, and the page says what documents get now', async () => {
    const user = userEvent.setup()
    renderRemindersPage({ manageBilling: true })
    await screen.findByText('Documents sent from this workspace do not remind signers.')
    expect(screen.getByText(/Documents already sent keep the schedule they were sent with/)).toBeTruthy()
    expect(remindSwitch().getAttribute('aria-checked')).toBe('false')
    expect(screen.queryByRole('spinbutton')).toBeNull()

    await user.click(remindSwitch())
    expect(descriptionOf(numberIn('First reminder after'))).toContain('1 to 60 days after the invitation')
    await typeNumber(user, 'First reminder after', '2')
    await typeNumber(user, 'Then every', '3')
    await typeNumber(user, 'At most', '2')
    await user.click(screen.getByRole('button', { name: 'Save' }))

    await screen.findByText('Documents sent from this workspace remind signers 2 days after the invitation, then every 3 days, at most 2 reminders.')
    expect(server.puts).toEqual([{ reminders: { first_after_days: 2, every_days: 3, max: 2 } }])
    await screen.findByText('Reminders saved')
  })

  it('turns reminders off: the PUT body is null', async () => {
    server.saved = { first_after_days: 2, every_days: 3, max: 2 }
    const user = userEvent.setup()
    renderRemindersPage({ manageBilling: true })
    await screen.findByText(/remind signers 2 days after the invitation/)
    expect(remindSwitch().getAttribute('aria-checked')).toBe('true')
    expect(['First reminder after', 'Then every', 'At most'].map((name) => numberIn(name).value)).toEqual(['2', '3', '2'])

    await user.click(remindSwitch())
    expect(screen.queryByRole('spinbutton')).toBeNull()
    await user.click(screen.getByRole('button', { name: 'Save' }))

    await screen.findByText('Documents sent from this workspace do not remind signers.')
    expect(server.puts).toEqual([{ reminders: null }])
    await screen.findByText('Reminders turned off')
  })

  it('a 400 at /reminders/max shows the people text under "At most", not the API\'s text', async () => {
    server.refusal = { status: 400, body: { error: 'reminders.max must be at most 10', code: 'validation_failed', field: '/reminders/max' } }
    const user = userEvent.setup()
    renderRemindersPage({ manageBilling: true })
    await user.click(await screen.findByRole('switch', { name: 'Remind signers who have not signed' }))
    await typeNumber(user, 'At most', '11')
    await user.click(screen.getByRole('button', { name: 'Save' }))

    await screen.findByText('Enter a number of reminders from 1 to 10')
    expect(numberIn('At most').getAttribute('aria-invalid')).toBe('true')
    expect(descriptionOf(numberIn('At most'))).toContain('Enter a number of reminders from 1 to 10')
    expect(numberIn('First reminder after').getAttribute('aria-invalid')).toBeNull()
    expect(numberIn('Then every').getAttribute('aria-invalid')).toBeNull()
    expect(screen.queryByText(/reminders\.max/)).toBeNull()
    expect(screen.queryByText('The reminders were not saved')).toBeNull()
    expect(server.puts).toEqual([{ reminders: { first_after_days: 3, every_days: 3, max: 11 } }])
    // Nothing was saved: the page still says what documents get.
    expect(screen.getByText('Documents sent from this workspace do not remind signers.')).toBeTruthy()
  })
})

describe('Settings → Reminders for a member', () => {
  it('shows the default read-only and says who changes it', async () => {
    server.saved = { first_after_days: 2, every_days: 3, max: 2 }
    renderRemindersPage({ manageBilling: false })
    const card = (await screen.findByRole('heading', { name: 'Default for new documents' })).closest('section') as HTMLElement
    await within(card).findByText('Documents sent from this workspace remind signers 2 days after the invitation, then every 3 days, at most 2 reminders.')
    expect(within(card).getByText('Only owners and admins of this workspace change the default.')).toBeTruthy()
    expect(screen.queryByRole('switch')).toBeNull()
    expect(screen.queryByRole('spinbutton')).toBeNull()
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull()
    expect(server.puts).toEqual([])
  })
})

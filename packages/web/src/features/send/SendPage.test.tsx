// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createMemoryHistory, createRootRoute, createRoute, createRouter, RouterProvider } from '@tanstack/react-router'
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SendPage } from './SendPage.tsx'

const WORKSPACE_DEFAULT = { reminders: { first_after_days: 2, every_days: 3, max: 2 } }

/** What the fake server answers POST /documents with; GET /templates lists one two-party template, GET /settings/reminders the workspace's default. */
const server = vi.hoisted(() => {
  const state = {
    refusal: { status: 400, body: {} as Record<string, unknown> },
    sent: [] as unknown[],
    roles: [0, 1],
    roleNames: undefined as { role: number; name: string; order?: number }[] | undefined,
    defaultReminders: { status: 200, body: {} as unknown },
  }
  // openapi-fetch takes fetch when its client is created, and resolves /api/v1 against the page's address.
  ;(window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL('http://signet.test/app/send')
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init)
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
    if (request.method === 'GET' && new URL(request.url).pathname === '/api/v1/templates') {
      const template = {
        id: 'b6f2c1d0-0000-4000-8000-000000000001',
        name: 'Lease',
        roles: state.roles,
        ...(state.roleNames ? { role_names: state.roleNames } : {}),
      }
      return json(200, { templates: [template], has_more: false })
    }
    if (request.method === 'GET' && new URL(request.url).pathname === '/api/v1/settings/reminders') {
      return json(state.defaultReminders.status, state.defaultReminders.body)
    }
    state.sent.push(await request.json())
    return json(state.refusal.status, state.refusal.body)
  }
  return state
})

/** The Send page at /app/send, in a router whose route ids match the app's (getRouteApi('/signed-in/send')). */
function renderSendPage() {
  const root = createRootRoute()
  const signedIn = createRoute({ getParentRoute: () => root, id: 'signed-in' })
  const send = createRoute({ getParentRoute: () => signedIn, path: 'send', component: SendPage })
  const router = createRouter({ routeTree: root.addChildren([signedIn.addChildren([send])]), history: createMemoryHistory({ initialEntries: ['/send'] }) })
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  )
}

/** The text an input's aria-describedby points at (its Field's error and hint). */
const descriptionOf = (input: HTMLElement) =>
  (input.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ')

async function sendWith(partyOneEmail: string) {
  const user = userEvent.setup()
  renderSendPage()
  const partyOne = await screen.findByRole('group', { name: 'Party 1' })
  const email = within(partyOne).getByRole('textbox', { name: /E-mail/ })
  await user.type(email, partyOneEmail)
  await user.click(screen.getByRole('button', { name: 'Send for signature' }))
  return email
}

/** Types each party's e-mail (Party 1 gets the first), with the switch of a signing order turned on when asked. */
async function fillParties(emails: string[], { oneAfterAnother = false } = {}) {
  const user = userEvent.setup()
  renderSendPage()
  await screen.findByRole('group', { name: 'Party 1' })
  if (oneAfterAnother) await user.click(screen.getByRole('switch', { name: 'Signers sign one after another' }))
  for (const [index, email] of emails.entries()) {
    await user.type(within(screen.getByRole('group', { name: `Party ${index + 1}` })).getByRole('textbox', { name: /E-mail/ }), email)
  }
  return user
}

const stepOf = (party: string) => within(screen.getByRole('group', { name: party })).getByRole<HTMLInputElement>('spinbutton', { name: 'Step' })
const lastSent = () => server.sent.at(-1) as { signers: Record<string, unknown>[] }

beforeEach(() => {
  server.defaultReminders = { status: 200, body: WORKSPACE_DEFAULT }
})

afterEach(() => {
  cleanup()
  server.roles = [0, 1]
  server.roleNames = undefined
})

describe('the Send page places a refusal by its field', () => {
  it("a 400 at /signers/0/email shows the people text under Party 1's e-mail, not the API's text", async () => {
    server.refusal = { status: 400, body: { error: 'signers[0].email must be a valid e-mail address', code: 'validation_failed', field: '/signers/0/email' } }
    const email = await sendWith('ann@example')

    await within(screen.getByRole('group', { name: 'Party 1' })).findByText('Enter a valid email address')
    expect(email.getAttribute('aria-invalid')).toBe('true')
    expect(descriptionOf(email)).toContain('Enter a valid email address')
    expect(screen.queryByText(/signers\[0\]/)).toBeNull()
    expect(screen.queryByText('The document was not sent')).toBeNull()
    expect(
      within(screen.getByRole('group', { name: 'Party 2' }))
        .getByRole('textbox', { name: /E-mail/ })
        .getAttribute('aria-invalid'),
    ).toBeNull()
    expect(server.sent.at(-1)).toMatchObject({
      signers: [
        { role: 0, email: 'ann@example' },
        { role: 1, email: '' },
      ],
    })
  })

  it("a refusal without a field shows the server's text above the button", async () => {
    const text = 'This template needs a signer for: Party 2 (role 1).'
    server.refusal = { status: 400, body: { error: text, code: 'invalid_request', field: '/signers' } }
    await sendWith('ann@example.com')

    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toBe(`The document was not sent${text}`)
  })
})

describe('a template without fields', () => {
  it('is caught before the server: no signer form, Send disabled, a link to edit its fields', async () => {
    server.roles = []
    const before = server.sent.length
    renderSendPage()
    await screen.findByText(/This template has no fields yet/)
    expect(screen.getByRole('link', { name: 'Edit fields' }).getAttribute('href')).toBe('/templates/b6f2c1d0-0000-4000-8000-000000000001')
    expect(screen.queryByRole('textbox', { name: /E-mail/ })).toBeNull()
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Send for signature' }).disabled).toBe(true)
    expect(server.sent.length).toBe(before)
  })
})

describe('signers one after another', () => {
  it('is off by default: no Step, and the request carries no order, as before orders existed', async () => {
    server.refusal = { status: 400, body: { error: 'Not this time.', code: 'invalid_request' } }
    const user = await fillParties(['ann@example.com', 'bo@example.com'])
    expect(screen.getByRole('switch', { name: 'Signers sign one after another' }).getAttribute('aria-checked')).toBe('false')
    expect(screen.queryByRole('spinbutton', { name: 'Step' })).toBeNull()
    await user.click(screen.getByRole('button', { name: 'Send for signature' }))

    await screen.findByText('The document was not sent')
    expect(lastSent().signers).toEqual([
      { role: 0, email: 'ann@example.com', auth_required: false },
      { role: 1, email: 'bo@example.com', auth_required: false },
    ])
  })

  it('when on, gives the parties steps 1, 2, 3 in role order and sends every one, a changed step as changed; the card says only the first was invited', async () => {
    server.roles = [0, 1, 2]
    server.refusal = {
      status: 201,
      body: {
        id: 'd0c5e1a2-0000-4000-8000-000000000001',
        status: 'sent',
        expires_at: null,
        signers: [0, 1, 2].map((role) => ({ id: `signer-${role}`, role, email: `p${role}@example.com`, auth_required: false, order: role === 0 ? 1 : 2 })),
      },
    }
    const user = await fillParties(['p0@example.com', 'p1@example.com', 'p2@example.com'], { oneAfterAnother: true })
    expect(['Party 1', 'Party 2', 'Party 3'].map((party) => stepOf(party).value)).toEqual(['1', '2', '3'])
    expect(descriptionOf(stepOf('Party 2'))).toContain('Parties with the same step sign at the same time.')
    await user.clear(stepOf('Party 3'))
    await user.type(stepOf('Party 3'), '2')
    await user.click(screen.getByRole('button', { name: 'Send for signature' }))

    await screen.findByRole('heading', { name: 'Sent' })
    expect(lastSent().signers.map(({ role, order }) => ({ role, order }))).toEqual([
      { role: 0, order: 1 },
      { role: 1, order: 2 },
      { role: 2, order: 2 },
    ])
    expect(screen.getByText(/been sent an invitation/).textContent).toBe(
      'The first signer has been sent an invitation to sign “Lease”. Each next step is invited once everyone in the step before has signed.',
    )
  })

  it("a 400 at /signers/1/order shows the people text under Party 2's Step, not the API's text", async () => {
    server.refusal = { status: 400, body: { error: 'signers[1].order must be at most 20', code: 'validation_failed', field: '/signers/1/order' } }
    const user = await fillParties(['ann@example.com', 'bo@example.com'], { oneAfterAnother: true })
    await user.clear(stepOf('Party 2'))
    await user.type(stepOf('Party 2'), '21')
    await user.click(screen.getByRole('button', { name: 'Send for signature' }))

    await within(screen.getByRole('group', { name: 'Party 2' })).findByText('Enter a step from 1 to 20')
    expect(stepOf('Party 2').getAttribute('aria-invalid')).toBe('true')
    expect(descriptionOf(stepOf('Party 2'))).toContain('Enter a step from 1 to 20')
    expect(stepOf('Party 1').getAttribute('aria-invalid')).toBeNull()
    expect(screen.queryByText(/signers\[1\]/)).toBeNull()
    expect(screen.queryByText('The document was not sent')).toBeNull()
    expect(lastSent().signers.map(({ order }) => order)).toEqual([1, 21])
  })

  it('is not offered for a template with one party', async () => {
    server.roles = [0]
    renderSendPage()
    await screen.findByRole('group', { name: 'Signer' })
    expect(screen.queryByRole('switch', { name: 'Signers sign one after another' })).toBeNull()
  })
})

describe('reminders', () => {
  const reminders = () => screen.getByRole('group', { name: 'Reminders' })
  const numberIn = (name: string) => within(reminders()).getByRole<HTMLInputElement>('spinbutton', { name })
  /** Sends to two parties with the reminders `choice` picked (and `then` done before sending); the server refuses, so the form stays. */
  async function sendWithReminders(choice: string | null, then?: (user: ReturnType<typeof userEvent.setup>) => Promise<void>) {
    server.refusal = { status: 400, body: { error: 'Not this time.', code: 'invalid_request' } }
    const user = await fillParties(['ann@example.com', 'bo@example.com'])
    if (choice) await user.click(within(reminders()).getByRole('radio', { name: choice }))
    await then?.(user)
    await user.click(screen.getByRole('button', { name: 'Send for signature' }))
    await screen.findByText('The document was not sent')
    return server.sent.at(-1) as { reminders?: unknown }
  }

  it("is the workspace's default unless chosen otherwise, says what that default is, and sends no schedule at all", async () => {
    const sent = await sendWithReminders(null)
    const workspaceDefault = within(reminders()).getByRole<HTMLInputElement>('radio', { name: 'Workspace default' })
    expect(workspaceDefault.checked).toBe(true)
    expect(descriptionOf(workspaceDefault)).toBe('Currently 2 days after the invitation, then every 3 days, at most 2 reminders.')
    expect(within(reminders()).queryByRole('spinbutton')).toBeNull()
    expect(sent).not.toHaveProperty('reminders')
  })

  it('says only "Workspace default" when the default cannot be read, and still sends no schedule', async () => {
    server.defaultReminders = { status: 500, body: { error: 'Something went wrong.', code: 'internal_error' } }
    const sent = await sendWithReminders(null)
    const workspaceDefault = within(reminders()).getByRole('radio', { name: 'Workspace default' })
    expect(workspaceDefault.getAttribute('aria-describedby')).toBeNull()
    expect(screen.queryByText(/Currently/)).toBeNull()
    expect(sent).not.toHaveProperty('reminders')
  })

  it('says so when the workspace has no default', async () => {
    server.defaultReminders = { status: 200, body: { reminders: null } }
    renderSendPage()
    await screen.findByText('Currently none.')
    expect(descriptionOf(screen.getByRole('radio', { name: 'Workspace default' }))).toBe('Currently none.')
  })

  it('"No reminders" sends null', async () => {
    expect(await sendWithReminders('No reminders')).toMatchObject({ reminders: null })
  })

  it('"Custom" starts from the workspace\'s default and sends the numbers as typed', async () => {
    const sent = await sendWithReminders('Custom', async (user) => {
      expect(['First reminder after', 'Then every', 'At most'].map((name) => numberIn(name).value)).toEqual(['2', '3', '2'])
      await user.clear(numberIn('Then every'))
      await user.type(numberIn('Then every'), '7')
      await user.clear(numberIn('At most'))
      await user.type(numberIn('At most'), '4')
    })
    expect(sent).toMatchObject({ reminders: { first_after_days: 2, every_days: 7, max: 4 } })
    expect(Object.keys(sent.reminders as object).sort()).toEqual(['every_days', 'first_after_days', 'max'])
  })

  it('a 400 at /reminders/max shows the people text under "At most", not the API\'s text', async () => {
    server.refusal = { status: 400, body: { error: 'reminders.max must be at most 10', code: 'validation_failed', field: '/reminders/max' } }
    const user = await fillParties(['ann@example.com', 'bo@example.com'])
    await user.click(within(reminders()).getByRole('radio', { name: 'Custom' }))
    await user.clear(numberIn('At most'))
    await user.type(numberIn('At most'), '11')
    await user.click(screen.getByRole('button', { name: 'Send for signature' }))

    await within(reminders()).findByText('Enter a number of reminders from 1 to 10')
    expect(numberIn('At most').getAttribute('aria-invalid')).toBe('true')
    expect(descriptionOf(numberIn('At most'))).toContain('Enter a number of reminders from 1 to 10')
    expect(numberIn('Then every').getAttribute('aria-invalid')).toBeNull()
    expect(screen.queryByText(/reminders\.max/)).toBeNull()
    expect(screen.queryByText('The document was not sent')).toBeNull()
    expect(lastSent()).toMatchObject({ reminders: { max: 11 } })
  })
})

describe("a template's named roles", () => {
  const TENANT_FIRST = [
    { role: 0, name: 'Landlord', order: 2 },
    { role: 1, name: 'Tenant', order: 1 },
  ]

  it("labels each party by its role's name, and starts one after another with the template's steps", async () => {
    server.roleNames = TENANT_FIRST
    server.refusal = { status: 400, body: { error: 'Not this time.', code: 'invalid_request' } }
    const user = userEvent.setup()
    renderSendPage()
    const landlord = await screen.findByRole('group', { name: 'Landlord' })
    expect(screen.queryByRole('group', { name: 'Party 1' })).toBeNull()
    expect(screen.getByRole('switch', { name: 'Signers sign one after another' }).getAttribute('aria-checked')).toBe('true')
    expect([stepOf('Landlord').value, stepOf('Tenant').value]).toEqual(['2', '1'])
    screen.getByText('The template sets the steps; changes here apply to this document only.')
    await user.type(within(landlord).getByRole('textbox', { name: /E-mail/ }), 'lena@example.com')
    await user.type(within(screen.getByRole('group', { name: 'Tenant' })).getByRole('textbox', { name: /E-mail/ }), 'tom@example.com')
    await user.click(screen.getByRole('button', { name: 'Send for signature' }))

    await screen.findByText('The document was not sent')
    expect(lastSent().signers).toEqual([
      { role: 0, email: 'lena@example.com', auth_required: false, order: 2 },
      { role: 1, email: 'tom@example.com', auth_required: false, order: 1 },
    ])
  })

  it("sends order: null for everyone at once when the switch is turned off (else the server would take the template's steps)", async () => {
    server.roleNames = TENANT_FIRST
    server.refusal = { status: 400, body: { error: 'Not this time.', code: 'invalid_request' } }
    const user = userEvent.setup()
    renderSendPage()
    await screen.findByRole('group', { name: 'Landlord' })
    await user.click(screen.getByRole('switch', { name: 'Signers sign one after another' }))
    expect(screen.queryByRole('spinbutton', { name: 'Step' })).toBeNull()
    await user.type(within(screen.getByRole('group', { name: 'Landlord' })).getByRole('textbox', { name: /E-mail/ }), 'lena@example.com')
    await user.type(within(screen.getByRole('group', { name: 'Tenant' })).getByRole('textbox', { name: /E-mail/ }), 'tom@example.com')
    await user.click(screen.getByRole('button', { name: 'Send for signature' }))

    await screen.findByText('The document was not sent')
    expect(lastSent().signers.map((signer) => signer.order)).toEqual([null, null])
  })

  it('a name without steps changes only the label: the switch stays off', async () => {
    server.roleNames = [{ role: 1, name: 'Guarantor' }]
    renderSendPage()
    await screen.findByRole('group', { name: 'Guarantor' })
    screen.getByRole('group', { name: 'Party 1' })
    expect(screen.getByRole('switch', { name: 'Signers sign one after another' }).getAttribute('aria-checked')).toBe('false')
  })
})

import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueOperatorSetupLink } from '../src/accounts/operator-setup.ts'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { auditEvents } from '../src/db/schema.ts'
import { bodyOf, createSentDocument, expectError, setupOrg, type TestOrg } from './helpers/api.ts'
import { createSignedInUser, linkTokenFromMail, sessionCookieOf, sessionFetch, TEST_PASSWORD, uniqueUserEmail, type SignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
let acme: TestOrg
let owner: SignedInUser
beforeAll(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
  acme = await setupOrg(server, { name: 'Acme' })
  owner = await createSignedInUser(server, { orgId: acme.orgId, role: 'owner', name: 'Olive Owner' })
})
afterAll(() => server.close())

const anonymous = () => sessionFetch(server.url, '')
const post = (path: string, json: unknown) => anonymous()(path, { method: 'POST', json })

describe('workspace isolation through the session', () => {
  it("gives a user of another workspace 404 for this workspace's documents, templates and webhooks", async () => {
    const documentId = await createSentDocument(server, acme)
    const webhook = (await executeAdminCommand(server.services, { name: 'webhook.add', orgId: acme.orgId, url: 'http://127.0.0.1:9/hook' })) as { id: string }
    expect((await owner.fetch(`/api/v1/documents/${documentId}`)).status).toBe(200)
    expect((await owner.fetch(`/api/v1/templates/${acme.templateId}`)).status).toBe(200)

    const outsider = await createSignedInUser(server, { name: 'Oscar Outsider' })
    await expectError(await outsider.fetch(`/api/v1/documents/${documentId}`), 404)
    await expectError(await outsider.fetch(`/api/v1/templates/${acme.templateId}`), 404)
    await expectError(await outsider.fetch(`/api/v1/webhooks/${webhook.id}`, { method: 'PATCH', json: { enabled: false } }), 404)
    const theirs = await bodyOf<{ members: { email: string }[] }>(await outsider.fetch('/api/v1/members'))
    expect(theirs.members.map((m) => m.email)).toEqual([outsider.email])
  })

  it('records the signed-in person in the audit trail of what they send', async () => {
    const sent = await owner.fetch('/api/v1/documents', {
      method: 'POST',
      json: { template_id: acme.templateId, signer: { email: uniqueUserEmail('signer') } },
    })
    expect(sent.status).toBe(201)
    const { id } = await bodyOf<{ id: string }>(sent)
    const [created] = await server.services.db.select().from(auditEvents).where(eq(auditEvents.documentId, id))
    expect(created).toMatchObject({ actorName: `Olive Owner <${owner.email}> (Acme)`, authMethod: 'session' })
  })
})

describe('members and roles', () => {
  it('lets members read but not manage members; admins cannot touch owners; the last owner stays', async () => {
    const member = await createSignedInUser(server, { orgId: acme.orgId, role: 'member', name: 'Mia Member' })
    const admin = await createSignedInUser(server, { orgId: acme.orgId, role: 'admin', name: 'Adam Admin' })
    const listed = await bodyOf<{ members: { user_id: string; role: string }[] }>(await member.fetch('/api/v1/members'))
    expect(listed.members.map((m) => m.role)).toEqual(expect.arrayContaining(['owner', 'member', 'admin']))
    const managersOnly = "Only the workspace's owners and admins can manage members."
    await expectError(
      await member.fetch('/api/v1/members/invitations', { method: 'POST', json: { email: uniqueUserEmail(), role: 'member' } }),
      403,
      managersOnly,
    )
    await expectError(await member.fetch(`/api/v1/members/${admin.userId}`, { method: 'PATCH', json: { role: 'member' } }), 403, managersOnly)
    await expectError(await member.fetch(`/api/v1/members/${admin.userId}`, { method: 'DELETE' }), 403, managersOnly)

    await expectError(
      await admin.fetch('/api/v1/members/invitations', { method: 'POST', json: { email: uniqueUserEmail(), role: 'owner' } }),
      403,
      'Only an owner can invite an owner.',
    )
    await expectError(
      await admin.fetch(`/api/v1/members/${member.userId}`, { method: 'PATCH', json: { role: 'owner' } }),
      403,
      /Only an owner can make someone an owner/,
    )
    await expectError(await admin.fetch(`/api/v1/members/${owner.userId}`, { method: 'DELETE' }), 403)

    const lastOwner = 'A workspace needs at least one owner: make someone else owner first.'
    await expectError(await owner.fetch(`/api/v1/members/${owner.userId}`, { method: 'PATCH', json: { role: 'admin' } }), 409, lastOwner)
    await expectError(await owner.fetch(`/api/v1/members/${owner.userId}`, { method: 'DELETE' }), 409, lastOwner)

    const promoted = await owner.fetch(`/api/v1/members/${admin.userId}`, { method: 'PATCH', json: { role: 'owner' } })
    expect(await bodyOf(promoted)).toMatchObject({ user_id: admin.userId, role: 'owner', name: 'Adam Admin' })
    // Two owners: the admin-turned-owner may now step down again, and the role counts at once.
    expect((await admin.fetch(`/api/v1/members/${admin.userId}`, { method: 'PATCH', json: { role: 'admin' } })).status).toBe(200)
    await expectError(await admin.fetch(`/api/v1/members/${owner.userId}`, { method: 'PATCH', json: { role: 'member' } }), 403)

    // A member may leave; removed from every workspace, only the /me routes still serve them.
    expect((await member.fetch(`/api/v1/members/${member.userId}`, { method: 'DELETE' })).status).toBe(204)
    await expectError(
      await member.fetch('/api/v1/documents'),
      403,
      'You do not belong to any workspace any more. Create a workspace or accept an invitation to continue.',
    )
    expect(await bodyOf(await member.fetch('/api/v1/me'))).toMatchObject({ workspace: null, workspaces: [] })
    expect((await admin.fetch(`/api/v1/members/${member.userId}`, { method: 'DELETE' })).status).toBe(404)
  })
})

describe("/me's abilities", () => {
  const abilitiesOf = async (user: SignedInUser) => (await bodyOf<{ abilities: Record<string, boolean> }>(await user.fetch('/api/v1/me'))).abilities
  const managerAbilities = { manage_api_keys: true, manage_connected_apps: true, manage_webhooks: true, manage_billing: true, manage_members: true }

  it('say what each role may do, and the routes agree', async () => {
    const member = await createSignedInUser(server, { orgId: acme.orgId, role: 'member' })
    const admin = await createSignedInUser(server, { orgId: acme.orgId, role: 'admin' })
    const ownerOnly = { manage_owners: true, manage_identity_check: true, require_two_factor: true }
    const none = { manage_api_keys: false, manage_connected_apps: false, manage_webhooks: false, manage_billing: false, manage_members: false }
    const noOwnerRights = { manage_owners: false, manage_identity_check: false, require_two_factor: false }

    expect(await abilitiesOf(owner)).toEqual({ ...managerAbilities, ...ownerOnly, operate_instance: false })
    expect(await abilitiesOf(admin)).toEqual({ ...managerAbilities, ...noOwnerRights, operate_instance: false })
    expect(await abilitiesOf(member)).toEqual({ ...none, ...noOwnerRights, operate_instance: false })

    // What /me denies, the routes refuse; what it grants, they serve.
    await expectError(await member.fetch('/api/v1/keys'), 403, "Only the workspace's owners and admins can manage API keys.")
    expect((await admin.fetch('/api/v1/keys')).status).toBe(200)
    await expectError(await member.fetch('/api/v1/operator/orgs'), 403, 'Only the instance operator can do this.')
  })

  // (The operator's operate_instance: accounts-admin.test.ts, whose instance may have an operator.)
  it('are all false without a workspace', async () => {
    const leaver = await createSignedInUser(server, { orgId: acme.orgId, role: 'member' })
    expect((await leaver.fetch(`/api/v1/members/${leaver.userId}`, { method: 'DELETE' })).status).toBe(204)
    expect(await abilitiesOf(leaver)).toEqual({
      manage_api_keys: false,
      manage_connected_apps: false,
      manage_webhooks: false,
      manage_billing: false,
      manage_members: false,
      manage_owners: false,
      manage_identity_check: false,
      require_two_factor: false,
      operate_instance: false,
    })
  })
})

describe('invitations', () => {
  it('invites by mail; a new person signs up through the link and joins, verified, with the offered role', async () => {
    const email = uniqueUserEmail('newcomer')
    const invited = await owner.fetch('/api/v1/members/invitations', { method: 'POST', json: { email, role: 'admin' } })
    expect(invited.status).toBe(201)
    expect(await bodyOf(invited)).toMatchObject({ email, role: 'admin' })
    const [mail] = await server.mail.waitFor(email)
    expect(mail?.subject).toBe('You are invited to a workspace on Signet')
    expect(mail?.text).toContain(`Olive Owner (${owner.email}) invited you to join the workspace "Acme" on Signet as an admin.`)
    expect(mail?.text).toContain('http://signet.test/app/invite/')
    const token = await linkTokenFromMail(server.mail, email, 'invite')
    expect(await bodyOf(await anonymous()(`/api/v1/invitations/${token}`))).toEqual({
      workspace_name: 'Acme',
      email,
      role: 'admin',
      inviter_name: 'Olive Owner',
    })
    const pending = await bodyOf<{ invitations: { email: string }[] }>(await owner.fetch('/api/v1/members'))
    expect(pending.invitations.map((i) => i.email)).toContain(email)

    const otherAddress = await post('/api/v1/auth/signup', { email: uniqueUserEmail(), password: TEST_PASSWORD, name: 'Wrong', invitation_token: token })
    expect({ status: otherAddress.status, body: await bodyOf(otherAddress) }).toEqual({
      status: 400,
      body: { error: 'This invitation was sent to another address: sign up with the address it was sent to.', code: 'invalid_request', field: '/email' },
    })
    expect((await post('/api/v1/auth/signup', { email, password: TEST_PASSWORD, name: 'Nina Newcomer', invitation_token: token })).status).toBe(202)
    await server.mail.waitFor(email, 2)
    const login = await post('/api/v1/auth/login', { email, password: TEST_PASSWORD })
    expect(login.status).toBe(200)
    expect(await bodyOf(login)).toMatchObject({ user: { email, email_verified: true }, workspace: { id: acme.orgId, role: 'admin' } })
    await expectError(await anonymous()(`/api/v1/invitations/${token}`), 410)
    expect(sessionCookieOf(login)).toBeDefined()
  })

  it('lets a signed-in user accept an invitation for their own address only, once; a revoked one is gone', async () => {
    const guest = await createSignedInUser(server, { name: 'Gus Guest' })
    const stranger = await createSignedInUser(server, { name: 'Sam Stranger' })
    expect((await owner.fetch('/api/v1/members/invitations', { method: 'POST', json: { email: guest.email, role: 'member' } })).status).toBe(201)
    const token = await linkTokenFromMail(server.mail, guest.email, 'invite')
    await expectError(
      await stranger.fetch(`/api/v1/invitations/${token}/accept`, { method: 'POST' }),
      403,
      `This invitation was sent to ${guest.email}: sign in with that address to accept it.`,
    )
    const accepted = await guest.fetch(`/api/v1/invitations/${token}/accept`, { method: 'POST' })
    expect(accepted.status).toBe(200)
    const me = await bodyOf<{ workspace: { id: string; role: string }; workspaces: unknown[] }>(accepted)
    expect(me.workspace).toMatchObject({ id: acme.orgId, role: 'member' })
    expect(me.workspaces).toHaveLength(2)
    await expectError(await guest.fetch(`/api/v1/invitations/${token}/accept`, { method: 'POST' }), 410)
    const member = await owner.fetch('/api/v1/members/invitations', { method: 'POST', json: { email: guest.email, role: 'member' } })
    expect({ status: member.status, body: await bodyOf(member) }).toEqual({
      status: 409,
      body: { error: `${guest.email} is already a member of this workspace.`, code: 'conflict', field: '/email' },
    })

    const later = uniqueUserEmail('later')
    const { id } = await bodyOf<{ id: string }>(await owner.fetch('/api/v1/members/invitations', { method: 'POST', json: { email: later, role: 'member' } }))
    const revokedToken = await linkTokenFromMail(server.mail, later, 'invite')
    expect((await owner.fetch(`/api/v1/members/invitations/${id}`, { method: 'DELETE' })).status).toBe(204)
    await expectError(await anonymous()(`/api/v1/invitations/${revokedToken}`), 410, /expired, was revoked or was already used/)
    await expectError(await anonymous()(`/api/v1/invitations/${'z'.repeat(43)}`), 404)
  })
})

describe('the operator setup link', () => {
  it('creates the operator once; a stranger who signs up first is an ordinary user', async () => {
    expect(await bodyOf(await anonymous()('/api/v1/instance'))).toMatchObject({ setup_required: true })
    const link = await issueOperatorSetupLink(server.services)
    expect(link).toMatch(/^http:\/\/signet\.test\/app\/setup\?token=[A-Za-z0-9_-]{43}$/)
    const token = new URL(link ?? '').searchParams.get('token') ?? ''
    // A link printed at an earlier start stops working when a new one is made.
    const newer = new URL((await issueOperatorSetupLink(server.services)) ?? '').searchParams.get('token') ?? ''
    const body = { email: uniqueUserEmail('operator'), password: TEST_PASSWORD, name: 'Otto Operator', workspace_name: 'Operations' }
    await expectError(await post('/api/v1/auth/setup', { ...body, token }), 410)
    // Refusals at their field leave the link working.
    const taken = await createSignedInUser(server)
    const refusals: [Record<string, string>, number, { error: string; code: string; field: string }][] = [
      [{ name: ' ' }, 400, { error: 'Your name cannot be blank.', code: 'invalid_request', field: '/name' }],
      [{ workspace_name: ' ' }, 400, { error: 'The workspace name cannot be blank.', code: 'invalid_request', field: '/workspace_name' }],
      [
        { email: taken.email },
        409,
        {
          error: `${taken.email} already has an account: sign in, and make it the operator with \`npm run -s admin -- user promote --email ${taken.email}\`.`,
          code: 'conflict',
          field: '/email',
        },
      ],
    ]
    for (const [change, status, refused] of refusals) {
      const answer = await post('/api/v1/auth/setup', { ...body, ...change, token: newer })
      expect({ status: answer.status, body: await bodyOf(answer) }).toEqual({ status, body: refused })
    }
    const setup = await post('/api/v1/auth/setup', { ...body, token: newer })
    expect(setup.status).toBe(200)
    expect(await bodyOf(setup)).toMatchObject({ user: { is_operator: true, email_verified: true }, workspace: { name: 'Operations', role: 'owner' } })
    expect(sessionCookieOf(setup)).toBeDefined()
    expect(await bodyOf(await anonymous()('/api/v1/instance'))).toMatchObject({ setup_required: false })
    await expectError(await post('/api/v1/auth/setup', { ...body, email: uniqueUserEmail(), token: newer }), 410)
    expect(await issueOperatorSetupLink(server.services)).toBeNull()
    // Every user created above (the strangers of the earlier tests included) is an ordinary one.
    const users = (await executeAdminCommand(server.services, { name: 'user.list' })) as { is_operator: boolean }[]
    expect(users.filter((u) => u.is_operator)).toHaveLength(1)
  })
})

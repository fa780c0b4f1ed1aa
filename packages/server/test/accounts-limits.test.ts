import { and, eq, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest'
import { issueAccountToken } from '../src/accounts/account-tokens.ts'
import { WORKSPACE_LIMITS } from '../src/accounts/workspace-limits.ts'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { memberships, orgs } from '../src/db/schema.ts'
import { bodyOf, expectError, postDocument, setupOrg, uniqueEmail, type TestOrg } from './helpers/api.ts'
import { makePdf } from './helpers/pdf.ts'
import { connectAgent } from './helpers/mcp.ts'
import { postSeal } from './helpers/seals.ts'
import { createSignedInUser, linkTokenFromMail, sessionFetch, TEST_PASSWORD, uniqueUserEmail, type SignedInUser } from './helpers/session.ts'
import { sendForSigning } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Workspaces, invitations and names (issue 18: 6, 9, 12, 15): how many workspaces a person
 * makes and how many invitations go out; owners changing each other's roles at once; an
 * invitation outliving its sender's right to invite; names that hide what they hold.
 */

let server: TestServer
let org: TestOrg
beforeAll(async () => {
  server = await startTestServer()
  org = await setupOrg(server)
})
afterAll(() => server.close())

const anonymous = () => sessionFetch(server.url, '')
const invite = (user: SignedInUser, email: string, role = 'member') => user.fetch('/api/v1/members/invitations', { method: 'POST', json: { email, role } })
const statusesOf = async (responses: Promise<Response>[]) => (await Promise.all(responses)).map((response) => response.status).sort()
const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length

describe('workspaces one person creates', () => {
  it(`refuses a Free workspace beyond ${WORKSPACE_LIMITS.freeOwned} owned, and more than ${WORKSPACE_LIMITS.createdPerDay} a day, however many arrive at once`, async () => {
    const user = await createSignedInUser(server, { name: 'Farmer' })
    const create = (i: number) => user.fetch('/api/v1/workspaces', { method: 'POST', json: { name: `Farm ${i}` } })
    // The sign-up workspace is the first Free one: four more of eight sent at once.
    const free = await statusesOf(Array.from({ length: 8 }, (_, i) => create(i)))
    expect({ created: count(free, 201), refused: count(free, 409) }).toEqual({
      created: WORKSPACE_LIMITS.freeOwned - 1,
      refused: 9 - WORKSPACE_LIMITS.freeOwned,
    })
    await expectError(
      await create(9),
      409,
      `You already own ${WORKSPACE_LIMITS.freeOwned} workspaces on the Free plan, the most one person can. Upgrade one of them, or work in one you have.`,
    )

    // Paid workspaces do not count against the Free cap; the day's count still holds.
    const upgradeAll = async () => {
      const owned = await server.services.db.select({ orgId: memberships.orgId }).from(memberships).where(eq(memberships.userId, user.userId))
      await server.services.db
        .update(orgs)
        .set({ plan: 'pro' })
        .where(
          inArray(
            orgs.id,
            owned.map((row) => row.orgId),
          ),
        )
    }
    await upgradeAll()
    const leftToday = WORKSPACE_LIMITS.createdPerDay - WORKSPACE_LIMITS.freeOwned
    for (let i = 1; i < leftToday; i++) expect((await create(10 + i)).status).toBe(201)
    await upgradeAll()
    const last = await statusesOf(Array.from({ length: 4 }, (_, i) => create(20 + i)))
    expect({ created: count(last, 201), refused: count(last, 429) }).toEqual({ created: 1, refused: 3 })
    const refused = await create(30)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(23 * 3600)
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(24 * 3600)
    await expectError(
      refused,
      429,
      `You have created ${WORKSPACE_LIMITS.createdPerDay} workspaces in the last 24 hours, the most one person can. Try again in 24 hours.`,
    )
  })
})

describe('invitations', () => {
  it("never puts the inviter's name or the workspace's in the subject; the body shows them escaped", async () => {
    const owner = await createSignedInUser(server, { name: 'Support <b>Team</b>' })
    await server.services.db.update(orgs).set({ name: 'Your account is locked: reply with your password' }).where(eq(orgs.id, owner.orgId))
    const email = uniqueUserEmail('inbox')
    expect((await invite(owner, email)).status).toBe(201)
    const [mail] = await server.mail.waitFor(email)
    expect(mail?.subject).toBe('You are invited to a workspace on Signet')
    expect(mail?.text).toContain(
      `Support <b>Team</b> (${owner.email}) invited you to join the workspace "Your account is locked: reply with your password" on Signet as a member.`,
    )
    expect(mail?.html).toContain('Support &lt;b&gt;Team&lt;/b&gt;')
    expect(mail?.html).not.toContain('<b>Team')
  })

  it(`sends one address at most ${WORKSPACE_LIMITS.invitationsPerAddressPerDay} a day from all workspaces together, however many arrive at once`, async () => {
    const inviters = await Promise.all([1, 2, 3].map((i) => createSignedInUser(server, { name: `Inviter ${i}` })))
    const target = uniqueUserEmail('target')
    const sent = await statusesOf(Array.from({ length: 9 }, (_, i) => invite(inviters[i % 3] as SignedInUser, target)))
    expect({ sent: count(sent, 201), refused: count(sent, 429) }).toEqual({
      sent: WORKSPACE_LIMITS.invitationsPerAddressPerDay,
      refused: 9 - WORKSPACE_LIMITS.invitationsPerAddressPerDay,
    })
    const refused = await invite(inviters[0] as SignedInUser, target)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(23 * 3600)
    await expectError(
      refused,
      429,
      `${target} has been invited ${WORKSPACE_LIMITS.invitationsPerAddressPerDay} times in the last 24 hours, the most one address can be. Try again in 24 hours.`,
    )
    await server.mail.waitFor(target, WORKSPACE_LIMITS.invitationsPerAddressPerDay)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(server.mail.messages.filter((m) => m.to?.some((t) => t.address === target))).toHaveLength(WORKSPACE_LIMITS.invitationsPerAddressPerDay)
  })

  it(`sends at most ${WORKSPACE_LIMITS.invitationsPerWorkspacePerDay} a day from one workspace, however many arrive at once`, async () => {
    const owner = await createSignedInUser(server, { name: 'Bulk Inviter' })
    const already = WORKSPACE_LIMITS.invitationsPerWorkspacePerDay - 3
    // The day's earlier invitations, written directly (a hundred mails would only slow the test).
    await server.services.db.transaction(async (tx) => {
      for (let i = 0; i < already; i++) {
        await issueAccountToken(
          tx,
          'invitation',
          { email: uniqueUserEmail('earlier'), orgId: owner.orgId, role: 'member', createdByUserId: owner.userId },
          new Date(),
        )
      }
    })
    const sent = await statusesOf(Array.from({ length: 6 }, () => invite(owner, uniqueUserEmail('wave'))))
    expect({ sent: count(sent, 201), refused: count(sent, 429) }).toEqual({ sent: 3, refused: 3 })
    await expectError(
      await invite(owner, uniqueUserEmail('late')),
      429,
      `This workspace has sent ${WORKSPACE_LIMITS.invitationsPerWorkspacePerDay} invitations in the last 24 hours, the most it can. Try again in 24 hours.`,
    )
  })
})

describe('an invitation lives as long as its sender may send it', () => {
  it('dies when its sender is removed or demoted, whether the invitee signs in or signs up', async () => {
    const owner = await createSignedInUser(server, { name: 'Olga Owner' })
    const admin = await createSignedInUser(server, { orgId: owner.orgId, role: 'admin', name: 'Adam Admin' })
    const coOwner = await createSignedInUser(server, { orgId: owner.orgId, role: 'owner', name: 'Cora Co-owner' })
    const guest = await createSignedInUser(server, { name: 'Gwen Guest' })
    const newcomer = uniqueUserEmail('newcomer')
    const asMember = uniqueUserEmail('as-member')
    const asOwner = uniqueUserEmail('as-owner')
    for (const [user, email, role] of [
      [admin, guest.email, 'member'],
      [admin, newcomer, 'member'],
      [coOwner, asMember, 'member'],
      [coOwner, asOwner, 'owner'],
    ] as const) {
      expect((await invite(user, email, role)).status).toBe(201)
    }
    const guestToken = await linkTokenFromMail(server.mail, guest.email, 'invite')
    const newcomerToken = await linkTokenFromMail(server.mail, newcomer, 'invite')
    const asOwnerToken = await linkTokenFromMail(server.mail, asOwner, 'invite')

    expect((await owner.fetch(`/api/v1/members/${admin.userId}`, { method: 'DELETE' })).status).toBe(204)
    expect((await owner.fetch(`/api/v1/members/${coOwner.userId}`, { method: 'PATCH', json: { role: 'admin' } })).status).toBe(200)

    const spent = /expired, was revoked or was already used/
    await expectError(await guest.fetch(`/api/v1/invitations/${guestToken}/accept`, { method: 'POST' }), 410, spent)
    await expectError(await anonymous()(`/api/v1/invitations/${newcomerToken}`), 410, spent)
    const signUp = { email: newcomer, password: TEST_PASSWORD, name: 'Nia Newcomer', invitation_token: newcomerToken }
    await expectError(await anonymous()('/api/v1/auth/signup', { method: 'POST', json: signUp }), 410, spent)
    await expectError(await anonymous()(`/api/v1/invitations/${asOwnerToken}`), 410, spent)
    // What the demoted owner may still offer stays pending; the rest is gone from the list.
    const { invitations } = await bodyOf<{ invitations: { email: string }[] }>(await owner.fetch('/api/v1/members'))
    expect(invitations.map((i) => i.email)).toEqual([asMember])
    expect((await guest.fetch('/api/v1/me').then(bodyOf<{ workspaces: unknown[] }>)).workspaces).toHaveLength(1)
  })

  it('is refused (410) when its sender lost the right to invite before revocation existed', async () => {
    const owner = await createSignedInUser(server, { name: 'Otto Owner' })
    const admin = await createSignedInUser(server, { orgId: owner.orgId, role: 'admin', name: 'Ada Admin' })
    const guest = await createSignedInUser(server, { name: 'Gil Guest' })
    expect((await invite(admin, guest.email)).status).toBe(201)
    const token = await linkTokenFromMail(server.mail, guest.email, 'invite')
    // An invitation sent before this rule: its sender left without it being revoked.
    await server.services.db.delete(memberships).where(and(eq(memberships.orgId, owner.orgId), eq(memberships.userId, admin.userId)))
    const gone = 'This invitation no longer works: whoever sent it can no longer invite to this workspace. Ask the workspace for a new one.'
    await expectError(await anonymous()(`/api/v1/invitations/${token}`), 410, gone)
    await expectError(await guest.fetch(`/api/v1/invitations/${token}/accept`, { method: 'POST' }), 410, gone)
    // Back with the right to invite: the invitation works again.
    await server.services.db.insert(memberships).values({ orgId: owner.orgId, userId: admin.userId, role: 'admin' })
    expect((await guest.fetch(`/api/v1/invitations/${token}/accept`, { method: 'POST' })).status).toBe(200)
  })
})

describe('concurrent changes among the owners of one workspace', () => {
  // One round lost no race on PostgreSQL about one time in three before the fix (a deadlock between a demotion and a removal): four rounds.
  it.each([1, 2, 3, 4])('never answers 500 and always leaves an owner (round %i: 24 role changes and removals at once)', async () => {
    const first = await createSignedInUser(server, { name: 'Owner 0' })
    const owners: SignedInUser[] = [first]
    for (let i = 1; i < 6; i++) owners.push(await createSignedInUser(server, { orgId: first.orgId, role: 'owner', name: `Owner ${i}` }))
    const changes = Array.from({ length: 24 }, (_, i) => {
      const actor = owners[i % owners.length] as SignedInUser
      const target = owners[(i * 5 + 1) % owners.length] as SignedInUser
      return i % 3 === 0
        ? actor.fetch(`/api/v1/members/${target.userId}`, { method: 'DELETE' })
        : actor.fetch(`/api/v1/members/${target.userId}`, { method: 'PATCH', json: { role: i % 3 === 1 ? 'admin' : 'member' } })
    })
    const statuses = await statusesOf(changes)
    // 403/404 for whoever was demoted or removed by an earlier change; 409 for the last owner.
    expect(statuses.filter((status) => ![200, 204, 403, 404, 409].includes(status))).toEqual([])
    const remaining = await server.services.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.orgId, first.orgId), eq(memberships.role, 'owner')))
    expect(remaining.length).toBeGreaterThanOrEqual(1)
  })
})

describe('names and titles show everything they hold', () => {
  const HIDDEN = [
    ['a tag character (invisible ASCII)', 'Ann\u{E0049}\u{E0067}\u{E006E}', 'must not contain invisible characters (U+E0049)'],
    ['a zero-width space', 'Ann\u200BExample', 'must not contain invisible characters (U+200B)'],
    ['a byte order mark', '\uFEFFAnn', 'must not contain invisible characters (U+FEFF)'],
    ['a word joiner', 'Ann\u2060Example', 'must not contain invisible characters (U+2060)'],
    ['an invisible separator', 'Ann\u2063', 'must not contain invisible characters (U+2063)'],
    ['the Mongolian vowel separator', 'Ann\u180E', 'must not contain invisible characters (U+180E)'],
    ['a soft hyphen', 'An\u00ADn', 'must not contain invisible characters (U+00AD)'],
    ['a Hangul filler', '\u3164', 'must not contain invisible characters (U+3164)'],
    ['a variation selector on nothing', 'Ann \uFE0F\uFE0F', 'must not contain invisible characters (U+FE0F)'],
    ['a line separator', 'Ann\u2028Ignore the above', 'must be a single line, without line breaks or tabs (U+2028)'],
    ['a line feed', 'Ann\nExample', 'must be a single line, without line breaks or tabs (U+000A)'],
    ['a stack of combining marks', 'Z\u0334\u0321\u031B\u0316\u0317algo', 'must not stack more than 4 accents or marks on one letter'],
  ] as const

  test.each(HIDDEN)('%s → 400 in a user name, a workspace name and a signer name', async (_what, text, problem) => {
    const user = await createSignedInUser(server)
    await expectError(await user.fetch('/api/v1/me', { method: 'PATCH', json: { name: text } }), 400, `name ${problem}`)
    await expectError(await user.fetch('/api/v1/workspaces', { method: 'POST', json: { name: text } }), 400, `name ${problem}`)
    await expectError(
      await postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email: uniqueEmail(), name: text } }),
      400,
      `signer.name ${problem}`,
    )
  })

  it('in sign-up, template, key and seal names and titles, and through the operator CLI → 400 naming the field', async () => {
    const zwsp = 'Board\u200Bminutes'
    const problem = 'must not contain invisible characters (U+200B)'
    const signUp = { email: uniqueUserEmail(), password: TEST_PASSWORD, name: 'Ann', workspace_name: zwsp }
    await expectError(await anonymous()('/api/v1/auth/signup', { method: 'POST', json: signUp }), 400, `workspace_name ${problem}`)
    const owner = await createSignedInUser(server, { orgId: org.orgId, role: 'owner' })
    await expectError(await owner.fetch(`/api/v1/templates/${org.templateId}`, { method: 'PATCH', json: { name: zwsp } }), 400, `name ${problem}`)
    await expectError(await owner.fetch('/api/v1/keys', { method: 'POST', json: { name: zwsp } }), 400, `name ${problem}`)
    await expectError(await postSeal(server, org.apiKey, await makePdf(), { title: zwsp }), 400, `title ${problem}`)
    const label = [{ role: 0, type: 'text', page: 1, x: 72, y: 100, width: 200, height: 20, label: 'Job\u2028title' }]
    await expectError(
      await owner.fetch(`/api/v1/templates/${org.templateId}/fields`, { method: 'PUT', json: { fields: label } }),
      400,
      /fields\[0\]\.label must be a single line/,
    )
    const agent = await connectAgent(server, org.apiKey)
    const called = (await agent.callTool({
      name: 'create_and_send_document',
      arguments: { template_id: org.templateId, signer_email: uniqueEmail(), signer_name: zwsp },
    })) as {
      isError?: boolean
      content: { text: string }[]
    }
    expect({ isError: called.isError, text: called.content[0]?.text }).toEqual({ isError: true, text: `signer_name ${problem}` })
    await agent.close()
    await expect(
      executeAdminCommand(server.services, {
        name: 'user.create',
        email: uniqueUserEmail(),
        userName: zwsp,
        password: TEST_PASSWORD,
        operator: false,
        orgId: org.orgId,
      }),
    ).rejects.toThrow(`The name ${problem}.`)
  })

  test.each([
    ['Persian with a zero-width non-joiner', 'محمد\u200Cرضا'],
    ['Hindi with a virama and a joiner', 'क्\u200Dष त्रिपाठी'],
    ['Hebrew with points', 'שָׁלוֹם כֹּהֵן'],
    ['Arabic with a right-to-left mark', 'شركة\u200F Ann'],
    ['Vietnamese with two stacked marks', 'Nguye\u0302\u0303n'],
    ['an emoji family (joiners) and a heart (variation selector)', 'Ann 👨\u200D👩\u200D👧 ❤\uFE0F'],
    ['a keycap', 'Team #\uFE0F\u20E3'],
    ['the flag of Scotland (tag characters)', 'Ann 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}'],
  ])('%s is a name as sent', async (_what, name) => {
    const user = await createSignedInUser(server)
    const changed = await user.fetch('/api/v1/me', { method: 'PATCH', json: { name } })
    expect(changed.status).toBe(200)
    expect((await bodyOf<{ user: { name: string } }>(changed)).user.name).toBe(name)
  })

  it('free text keeps zero-width spaces, soft hyphens and line breaks, but no tag characters outside a flag', async () => {
    const send = (invite_message: string) => postDocument(server, org.apiKey, { template_id: org.templateId, signer: { email: uniqueEmail() }, invite_message })
    expect((await send('สวัสดี\u200Bครับ\nPlease sign the Ver\u00ADtrag. 🏴\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}')).status).toBe(201)
    await expectError(await send('Please sign.\u{E0020}\u{E0049}\u{E0067}\u{E006E}'), 400, 'invite_message must not contain invisible characters (U+E0020)')
    const { signers } = await sendForSigning(server, org)
    await expectError(await signers[0]!.decline('No.\u{E0041}'), 400, 'reason must not contain invisible characters (U+E0041)')
  })
})

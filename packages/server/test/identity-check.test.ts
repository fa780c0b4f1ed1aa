import { createCipheriv, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { actorFor } from '../src/actors/actor.ts'
import { DOCUMENT_KEY_FILE, documentCipherFor, instanceKeyFor } from '../src/adapters/document-cipher.ts'
import type { IdentitySubmission, IdentityVerifier } from '../src/adapters/identity-verifier.ts'
import { executeAdminCommand, parseAdminCommand } from '../src/admin/commands.ts'
import { identityChecks, identityDocumentKeys, orgs, selfSeals } from '../src/db/schema.ts'
import type { Logger } from '../src/lib/logger.ts'
import { submitIdentityCheck } from '../src/orgs/identity-checks.ts'
import { bodyOf, expectError, type Json } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { makePdf } from './helpers/pdf.ts'
import { rgbaPng } from './helpers/png.ts'
import { createSignedInUser, type SignedInUser } from './helpers/session.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * Settings → Identity check: the owner submits the legal name and an ID document, the operator
 * sees the document (nobody else does) and decides, the document is erased, and sealing works
 * (or keeps answering 412 with where to go).
 */

const DAY_MS = 86_400_000
const time = movableClock()
let server: TestServer
let operator: SignedInUser
let pdf: Uint8Array

const NO_IDENTITY =
  'Sealing needs a one-time identity check of this org first. The workspace owner submits it in Settings → Identity check in the dashboard (http://signet.test/app/settings/identity).'

beforeAll(async () => {
  server = await startTestServer({ clock: time.clock, env: { IDENTITY_DOCUMENT_KEY: randomBytes(32).toString('base64') } })
  operator = await createSignedInUser(server.services, { name: 'Otto Operator', isOperator: true, baseUrl: server.url })
  pdf = await makePdf(1)
})
afterAll(async () => {
  await server?.close()
})

/** An owner of a fresh Business workspace (sealing is metered; Business never runs out). */
async function newOwner(): Promise<SignedInUser> {
  const owner = await createSignedInUser(server.services, { name: 'Olive Owner', baseUrl: server.url })
  await executeAdminCommand(server.services, { name: 'org.set-plan', orgId: owner.orgId, plan: 'business' })
  return owner
}

const png = rgbaPng(
  2,
  2,
  Buffer.alloc(2 * (1 + 2 * 4), 0x7f)
    .fill(0, 0, 1)
    .fill(0, 9, 10),
)

/** A submission: the legal name in the query, the file as the raw body with its Content-Type. */
interface Submission {
  /** The whole query string instead of `legal_name=…`. */
  query?: string
  legalName?: string
  bytes?: Uint8Array
  type?: string
}

const submit = (
  user: SignedInUser,
  { legalName = 'Acme Widgets Ltd', query = `legal_name=${encodeURIComponent(legalName)}`, bytes = png, type = 'image/png' }: Submission = {},
) => user.fetch(`/api/v1/identity-check?${query}`, { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(bytes) })

const seal = (user: SignedInUser) =>
  user.fetch('/api/v1/seals?title=Report', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(pdf) })

async function pendingCheckOf(orgId: string): Promise<Json> {
  const response = await operator.fetch('/api/v1/operator/identity-checks?status=pending&limit=200')
  expect(response.status).toBe(200)
  const check = (await bodyOf<{ checks: Json[] }>(response)).checks.find((c) => c.org_id === orgId)
  if (!check) throw new Error('no pending check for the org')
  return check
}

const decide = (checkId: string, body: unknown, by = operator) =>
  by.fetch(`/api/v1/operator/identity-checks/${checkId}/decision`, { method: 'POST', json: body })

/** The document as stored: the ciphertext in the blob store, under the digest its check names (undefined once erased). */
async function storedDocument(checkId: string): Promise<Buffer | undefined> {
  const [row] = await server.services.db.select({ sha256: identityChecks.documentBlobSha256 }).from(identityChecks).where(eq(identityChecks.id, checkId))
  const bytes = row?.sha256 ? await server.services.blobs.get(row.sha256) : undefined
  return bytes && Buffer.from(bytes)
}

describe('submit → operator approves → sealing works', () => {
  test('the whole path, with the document encrypted, shown only to the operator, erased once decided', async () => {
    const owner = await newOwner()
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toEqual({
      status: 'none',
      legal_name: null,
      submitted_at: null,
      decided_at: null,
      valid_until: null,
      decision_reason: null,
      verifier: null,
    })
    await expectError(await seal(owner), 412, NO_IDENTITY)

    const submitted = await submit(owner, { legalName: '  Acme   Widgets Ltd ' })
    expect(submitted.status).toBe(201)
    const pending = await bodyOf(submitted)
    expect(pending).toEqual({
      status: 'pending',
      legal_name: 'Acme Widgets Ltd',
      submitted_at: expect.any(String) as unknown,
      decided_at: null,
      valid_until: null,
      decision_reason: null,
      verifier: 'manual',
    })
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toEqual(pending)
    await expectError(await submit(owner), 409, 'An identity check of this workspace is already waiting for a decision.')

    const check = await pendingCheckOf(owner.orgId)
    expect(check).toMatchObject({
      legal_name: 'Acme Widgets Ltd',
      status: 'pending',
      verifier: 'manual',
      submitted_by: { name: 'Olive Owner', email: owner.email },
      document: { filename: `identity-document-${check.id as string}.png`, content_type: 'image/png' },
      decided_at: null,
    })
    const checkId = check.id as string

    // At rest, in the blob store: AES-256-GCM (IV + ciphertext + tag), not the file.
    const stored = (await storedDocument(checkId)) ?? Buffer.alloc(0)
    expect(stored.length).toBe(png.length + 12 + 16)
    expect(stored.includes(png.subarray(0, 16))).toBe(false)

    // The owner has no way to the document; the operator gets the bytes, never cached.
    const documentPath = `/api/v1/operator/identity-checks/${checkId}/document`
    await expectError(await owner.fetch(documentPath), 403, 'Only the instance operator can do this.')
    const download = await operator.fetch(documentPath)
    expect(download.status).toBe(200)
    expect(download.headers.get('content-type')).toBe('image/png')
    expect(download.headers.get('cache-control')).toBe('no-store')
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="identity-document-${checkId}.png"`)
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true)

    const approved = await decide(checkId, { approve: true })
    expect(approved.status).toBe(200)
    const record = await bodyOf(approved)
    expect(record).toMatchObject({ id: checkId, status: 'approved', document: null, decided_by: `user:${operator.userId}`, decision_reason: null })
    expect(await storedDocument(checkId)).toBeUndefined()
    await expectError(await operator.fetch(documentPath), 410, 'The document was erased when the check was decided.')
    await expectError(await decide(checkId, { approve: false, reason: 'changed my mind' }), 409, 'This identity check was already approved.')

    const view = await bodyOf(await owner.fetch('/api/v1/identity-check'))
    expect(view).toEqual({ ...pending, status: 'approved', decided_at: record.decided_at, valid_until: expect.any(String) as unknown })
    expect(Date.parse(view.valid_until as string) - Date.parse(view.decided_at as string)).toBe(365 * DAY_MS)

    const sealed = await seal(owner)
    expect(sealed.status).toBe(201)
    expect(await bodyOf(sealed)).toMatchObject({ status: 'completed', seal_status: 'sealed', is_verified_badge: true })
  })

  test('the operator may correct the legal name when approving; seals print the corrected one', async () => {
    const owner = await newOwner()
    expect((await submit(owner, { bytes: pdf, type: 'application/pdf', legalName: 'Acme Widgets' })).status).toBe(201)
    const check = await pendingCheckOf(owner.orgId)
    expect(check.document).toEqual({ filename: `identity-document-${check.id as string}.pdf`, content_type: 'application/pdf' })
    const download = await operator.fetch(`/api/v1/operator/identity-checks/${check.id as string}/document`)
    expect(download.headers.get('content-type')).toBe('application/pdf')
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true)

    expect((await decide(check.id as string, { approve: true, legal_name: 'Acme Widgets Limited' })).status).toBe(200)
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'approved', legal_name: 'Acme Widgets Limited' })
    const sealed = await bodyOf(await seal(owner))
    expect(sealed.seal_status).toBe('sealed')
    const [stored] = await server.services.db
      .select({ legalName: selfSeals.legalName })
      .from(selfSeals)
      .where(eq(selfSeals.documentId, sealed.id as string))
    expect(stored?.legalName).toBe('Acme Widgets Limited')
  })
})

describe('reject path', () => {
  test('rejecting needs a reason the owner then sees; sealing stays refused; a new submission is allowed', async () => {
    const owner = await newOwner()
    expect((await submit(owner)).status).toBe(201)
    const checkId = (await pendingCheckOf(owner.orgId)).id as string

    await expectError(await decide(checkId, { approve: false }), 400, 'Say why the check is rejected (reason): the owner sees it.')
    await expectError(await decide(checkId, { approve: false, reason: '   ' }), 400)
    await expectError(await decide(checkId, { approve: false, reason: 'x', legal_name: 'Other' }), 400)
    const rejected = await decide(checkId, { approve: false, reason: 'The document is unreadable.' })
    expect(rejected.status).toBe(200)
    expect(await bodyOf(rejected)).toMatchObject({ status: 'rejected', document: null, decision_reason: 'The document is unreadable.' })
    expect(await storedDocument(checkId)).toBeUndefined()

    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toMatchObject({
      status: 'rejected',
      decision_reason: 'The document is unreadable.',
      valid_until: null,
      decided_at: expect.any(String) as unknown,
    })
    await expectError(await seal(owner), 412, NO_IDENTITY)

    expect((await submit(owner)).status).toBe(201)
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'pending', decision_reason: null })
  })
})

describe('who may submit and see', () => {
  test('only the owner submits (admins and members get 403); members may read the state; an API key gets 401', async () => {
    const owner = await newOwner()
    const admin = await createSignedInUser(server.services, { orgId: owner.orgId, role: 'admin', baseUrl: server.url })
    const member = await createSignedInUser(server.services, { orgId: owner.orgId, role: 'member', baseUrl: server.url })
    await expectError(await submit(admin), 403, "Only the workspace's owner can submit the identity check.")
    await expectError(await submit(member), 403, "Only the workspace's owner can submit the identity check.")
    expect((await member.fetch('/api/v1/identity-check')).status).toBe(200)

    const { api_key } = (await executeAdminCommand(server.services, { name: 'key.create', orgId: owner.orgId })) as { api_key: string }
    await expectError(await server.request('/api/v1/identity-check', { key: api_key }), 401)
    await expectError(
      await server.request('/api/v1/identity-check?legal_name=Acme', {
        key: api_key,
        method: 'POST',
        headers: { 'content-type': 'image/png' },
        body: new Uint8Array(png),
      }),
      401,
    )
  })

  test('the operator queue, document and decision are 403 for a non-operator and 401 without a session', async () => {
    const owner = await newOwner()
    expect((await submit(owner)).status).toBe(201)
    const checkId = (await pendingCheckOf(owner.orgId)).id as string
    await expectError(await owner.fetch('/api/v1/operator/identity-checks'), 403)
    await expectError(await decide(checkId, { approve: true }, owner), 403)
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'pending' })
    expect((await server.request(`/api/v1/operator/identity-checks/${checkId}/document`)).status).toBe(401)
  })
})

describe('bad input: 4xx {error}', () => {
  let owner: SignedInUser
  beforeAll(async () => {
    owner = await newOwner()
  })

  const FILE_TYPES = 'Unsupported Content-Type: send the body as application/pdf, image/png or image/jpeg.'
  test.each<[string, Submission, number, string | RegExp | undefined]>([
    [
      'a PDF declared as PNG',
      { bytes: Buffer.from('%PDF-1.7\n'), type: 'image/png' },
      400,
      'The file is sent as image/png but is not a readable PNG image: it does not start with the PNG signature. Upload a PDF, PNG or JPEG file.',
    ],
    [
      'a PNG declared as JPEG',
      { bytes: png, type: 'image/jpeg' },
      400,
      /^The file is sent as image\/jpeg but is not a readable JPEG image: it does not start with the JPEG start-of-image marker\./,
    ],
    ['text declared as PDF', { bytes: Buffer.from('hello'), type: 'application/pdf' }, 400, 'The file is not a PDF (no %PDF- header).'],
    ['a PNG cut short', { bytes: png.subarray(0, png.length - 8) }, 400, /the file ends before the image does \(is it truncated\?\)/],
    ['another content type', { bytes: png, type: 'image/gif' }, 415, FILE_TYPES],
    ['the JSON body of old', { bytes: Buffer.from(JSON.stringify({ legal_name: 'Acme', document: {} })), type: 'application/json' }, 415, FILE_TYPES],
    ['an empty body', { bytes: new Uint8Array() }, 400, 'Send the ID document (a PDF, PNG or JPEG file) as the request body.'],
    ['a blank legal name', { legalName: '   ' }, 400, 'The legal name must be 1 to 200 characters.'],
    ['a legal name of 201 characters', { legalName: 'x'.repeat(201) }, 400, undefined],
    ['a legal name hiding a zero-width space', { legalName: 'Acme\u200b Widgets Ltd' }, 400, 'The legal name must not contain invisible characters (U+200B).'],
    ['no legal name', { query: '' }, 400, undefined],
    ['an unknown parameter', { query: 'legal_name=Acme&note=hi' }, 400, undefined],
  ])('POST /identity-check with %s', async (_label, submission, status, message) => {
    await expectError(await submit(owner, submission), status, message)
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'none' })
  })

  test('a document over 10 MB: 413 from the body limit before it is read; nothing stored', async () => {
    const justOver = Buffer.alloc(10 * 1024 * 1024 + 1)
    png.copy(justOver)
    await expectError(await submit(owner, { bytes: justOver }), 413, 'The request body is larger than 10485760 bytes (an identity document is at most 10 MB).')
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'none' })
  })

  test('operator routes: an unknown or malformed check id is 404, a bad status 400, a bad decision body 400', async () => {
    await expectError(await operator.fetch('/api/v1/operator/identity-checks/not-a-uuid/document'), 404, 'No such identity check.')
    await expectError(await decide('00000000-0000-4000-8000-000000000000', { approve: true }), 404, 'No such identity check.')
    await expectError(await operator.fetch('/api/v1/operator/identity-checks?status=maybe'), 400)
    await expectError(await decide('00000000-0000-4000-8000-000000000000', { approve: 'yes' }), 400)
    await expectError(await decide('00000000-0000-4000-8000-000000000000', {}), 400)
  })
})

describe('the seams: document cipher and identity verifier', () => {
  const logger = { warn: () => undefined } as unknown as Logger

  test('without IDENTITY_DOCUMENT_KEY a key file is made once in DATA_DIR (mode 0600) and reused; another key cannot open', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'signet-cipher-'))
    try {
      const config = { identityDocumentKey: undefined, dataDir, databaseUrl: undefined }
      const sealed = await documentCipherFor(instanceKeyFor(config, logger)).seal(png, 'check-1')
      const keyPath = join(dataDir, DOCUMENT_KEY_FILE)
      expect(statSync(keyPath).mode & 0o777).toBe(0o600)
      const key = readFileSync(keyPath, 'utf8')
      expect(Buffer.from(key.trim(), 'base64')).toHaveLength(32)

      const reopened = documentCipherFor(instanceKeyFor(config, logger))
      expect((await reopened.open(sealed, 'check-1')).equals(png)).toBe(true)
      expect(readFileSync(keyPath, 'utf8')).toBe(key)
      await expect(reopened.open(sealed, 'check-2')).rejects.toMatchObject({ code: 'precondition_failed' })
      const otherKey = documentCipherFor(instanceKeyFor({ ...config, identityDocumentKey: randomBytes(32) }, logger))
      await expect(otherKey.open(sealed, 'check-1')).rejects.toMatchObject({ code: 'precondition_failed' })
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  test('each document has a key of its own, wrapped with the instance key; documents stored before that still open', async () => {
    const instanceKey = randomBytes(32)
    const cipher = documentCipherFor(instanceKeyFor({ identityDocumentKey: instanceKey, dataDir: tmpdir(), databaseUrl: undefined }, logger))
    const first = await cipher.seal(png, 'check-1')
    const second = await cipher.seal(png, 'check-1')
    expect(first.wrappedKey).toHaveLength(12 + 32 + 16)
    expect(Buffer.from(first.wrappedKey).equals(Buffer.from(second.wrappedKey))).toBe(false)
    expect(Buffer.from(first.ciphertext).equals(Buffer.from(second.ciphertext))).toBe(false)
    // The instance key alone opens neither document, and one document's key not the other.
    await expect(cipher.openLegacy(first.ciphertext, 'check-1')).rejects.toMatchObject({ code: 'precondition_failed' })
    await expect(cipher.open({ ciphertext: first.ciphertext, wrappedKey: second.wrappedKey }, 'check-1')).rejects.toThrow('does not match its key')

    // Before per-document keys: IV ‖ ciphertext ‖ tag under the instance key, the check id authenticated.
    const iv = randomBytes(12)
    const legacy = createCipheriv('aes-256-gcm', instanceKey, iv).setAAD(Buffer.from('check-0'))
    const legacyCiphertext = Buffer.concat([iv, legacy.update(png), legacy.final(), legacy.getAuthTag()])
    expect((await cipher.openLegacy(legacyCiphertext, 'check-0')).equals(png)).toBe(true)
  })

  test('a verifier that decides at once: approved on submission, document never kept, reference recorded', async () => {
    const owner = await newOwner()
    const seen: IdentitySubmission[] = []
    const instant: IdentityVerifier = {
      name: 'instant_test',
      submit: (check) => {
        seen.push(check)
        return Promise.resolve({ status: 'approved', reference: 'vs_123' })
      },
    }
    const [org] = await server.services.db.select().from(orgs).where(eq(orgs.id, owner.orgId))
    if (!org) throw new Error('no org')
    const actor = actorFor(
      { orgId: org.id, orgName: org.name, plan: org.plan },
      {
        channel: 'dashboard',
        authMethod: 'session',
        agentTriggered: false,
        clientName: null,
        ip: null,
        userAgent: null,
        user: { id: owner.userId, email: owner.email, name: owner.name, role: 'owner', isOperator: false },
        scopes: ['read', 'write'],
      },
    )
    const view = await submitIdentityCheck({ ...server.services, identityVerifier: instant }, actor, {
      legalName: 'Acme Widgets Ltd',
      contentType: 'image/png',
      document: new Uint8Array(png),
    })
    expect(view).toMatchObject({ status: 'approved', legal_name: 'Acme Widgets Ltd', verifier: 'instant_test' })
    expect(seen).toHaveLength(1)
    expect(seen[0]?.document).toMatchObject({ contentType: 'image/png', filename: expect.stringMatching(/^identity-document-[0-9a-f-]{36}\.png$/) as unknown })
    expect(Buffer.from(seen[0]?.document.bytes ?? []).equals(png)).toBe(true)
    const [row] = await server.services.db.select().from(identityChecks).where(eq(identityChecks.orgId, owner.orgId))
    expect(row).toMatchObject({
      status: 'approved',
      decidedBy: 'instant_test',
      verifierReference: 'vs_123',
      documentCiphertext: null,
      documentBlobSha256: null,
    })
    expect(
      await server.services.db
        .select()
        .from(identityDocumentKeys)
        .where(eq(identityDocumentKeys.checkId, row?.id ?? '')),
    ).toEqual([])
    expect((await seal(owner)).status).toBe(201)
  })
})

describe('the CLI and expiry', () => {
  test('admin org verify-identity still works and shows as approved', async () => {
    const owner = await newOwner()
    await executeAdminCommand(server.services, { name: 'org.verify-identity', orgId: owner.orgId, legalName: 'Cli Verified Ltd' })
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'approved', legal_name: 'Cli Verified Ltd', verifier: 'manual' })
    expect((await seal(owner)).status).toBe(201)
  })

  test('admin org identity-checks lists the queue; admin org decide-identity decides (a rejection needs a reason)', async () => {
    const owner = await newOwner()
    expect((await submit(owner)).status).toBe(201)
    const admin = (command: unknown) => executeAdminCommand(server.services, parseAdminCommand(command))
    const queue = (await admin({ name: 'org.identity-checks' })) as { checks: Json[] }
    const check = queue.checks.find((c) => c.org_id === owner.orgId)
    const checkId = check?.id as string
    expect(check).toMatchObject({ status: 'pending', document: { filename: `identity-document-${checkId}.png`, content_type: 'image/png' } })

    await expect(admin({ name: 'org.decide-identity', checkId, approve: false })).rejects.toThrow('Say why the check is rejected (reason): the owner sees it.')
    expect(await admin({ name: 'org.decide-identity', checkId, approve: false, reason: 'Expired passport.' })).toMatchObject({
      status: 'rejected',
      decided_by: 'cli',
      decision_reason: 'Expired passport.',
      document: null,
    })
    expect(((await admin({ name: 'org.identity-checks', status: 'rejected' })) as { checks: Json[] }).checks.map((c) => c.id)).toContain(checkId)
    expect(await bodyOf(await owner.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'rejected', decision_reason: 'Expired passport.' })
  })

  // Last: it moves the clock a year on.
  test('after 365 days the check is expired, sealing says to renew, and a new submission renews it', async () => {
    const owner = await newOwner()
    expect((await submit(owner)).status).toBe(201)
    expect((await decide((await pendingCheckOf(owner.orgId)).id as string, { approve: true })).status).toBe(200)

    time.advance(366 * DAY_MS)
    const later = await createSignedInUser(server.services, { orgId: owner.orgId, role: 'owner', baseUrl: server.url })
    expect(await bodyOf(await later.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'expired', legal_name: 'Acme Widgets Ltd' })
    await expectError(
      await seal(later),
      412,
      "This org's identity check is more than 365 days old. Sealing needs a new one: the workspace owner renews it in Settings → Identity check in the dashboard (http://signet.test/app/settings/identity).",
    )
    expect((await submit(later)).status).toBe(201)
    const laterOperator = await createSignedInUser(server.services, { isOperator: true, baseUrl: server.url })
    const checkId = (await bodyOf<{ checks: Json[] }>(await laterOperator.fetch('/api/v1/operator/identity-checks'))).checks.find(
      (c) => c.org_id === owner.orgId,
    )?.id as string
    expect((await decide(checkId, { approve: true }, laterOperator)).status).toBe(200)
    expect(await bodyOf(await later.fetch('/api/v1/identity-check'))).toMatchObject({ status: 'approved' })
    expect((await seal(later)).status).toBe(201)
  })
})

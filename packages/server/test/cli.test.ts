import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startAdminSocket } from '../src/admin/socket.ts'
import { adminSocketPath } from '../src/admin/socket-path.ts'
import { executeAdminCommand } from '../src/admin/commands.ts'
import { loadConfig } from '../src/config.ts'
import { openInstanceDatabase } from '../src/db/instance.ts'
import { orgs } from '../src/db/schema.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createServices } from '../src/compose-services.ts'
import {
  cleanUpProcesses,
  makeTempDir,
  runCli,
  runCliJson,
  startServer,
  usingPostgres,
  writeJson,
  writePdf,
  type CreatedOrg,
  type CreatedTemplate,
  type ServerProcess,
} from './helpers/processes.ts'

/**
 * The operator CLI as operators run it, as a child process, next to a real server process.
 * On PGlite the CLI talks to a running server over its admin socket and opens DATA_DIR
 * itself when none runs; with DATABASE_URL (CI's second pass) it always connects directly.
 */

/** Process start-up dominates: generous limits keep a loaded 2-core machine green. */
const TIMEOUT_MS = 240_000
const API_KEY = /^sgn_live_[0-9a-f]{64}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/** US letter, as makePdf draws it. */
const PAGE = { width: 612, height: 792 }

const field = (overrides: Record<string, unknown> = {}) => ({ role: 0, type: 'signature', page: 1, x: 72, y: 650, width: 180, height: 40, ...overrides })

interface TemplateList {
  templates: { id: string; name: string; page_count: number; created_at: string }[]
  total: number
  org_name: string | null
}

describe('CLI against a running server', () => {
  let dataDir: string
  let server: ServerProcess
  let org: CreatedOrg
  const files: Record<'onePage' | 'twoPages' | 'threePages', string> = { onePage: '', twoPages: '', threePages: '' }
  const signer = `ann-${randomUUID()}@example.com`

  const templates = async (key: string) => {
    const response = await server.request('/api/v1/templates', { key })
    expect(response.status).toBe(200)
    return (await response.json()) as TemplateList
  }

  beforeAll(async () => {
    dataDir = makeTempDir('cli')
    files.onePage = await writePdf(dataDir, 'one-page.pdf', 1)
    files.twoPages = await writePdf(dataDir, 'two-pages.pdf', 2)
    files.threePages = await writePdf(dataDir, 'three-pages.pdf', 3)
    server = await startServer({ dataDir })
  }, TIMEOUT_MS)
  afterAll(cleanUpProcesses, TIMEOUT_MS)

  test(
    'org create prints the org id and a first API key that works over HTTP',
    async () => {
      // Business: these tests give the org several templates (a Free org may have one).
      org = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Acme CLI', '--plan', 'business'])
      expect(Object.keys(org).sort()).toEqual(['api_key', 'org_id'])
      expect(org.org_id).toMatch(UUID)
      expect(org.api_key).toMatch(API_KEY)
      expect(await templates(org.api_key)).toMatchObject({ templates: [], total: 0, org_name: 'Acme CLI' })
      // PGlite: the server owns the database and serves the CLI over its socket. PostgreSQL: no socket at all.
      expect(existsSync(adminSocketPath(dataDir))).toBe(!usingPostgres)
    },
    TIMEOUT_MS,
  )

  test(
    'org create accepts a plan',
    async () => {
      const pro = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Acme Pro', '--plan', 'pro'])
      expect(pro.api_key).toMatch(API_KEY)
      expect((await templates(pro.api_key)).org_name).toBe('Acme Pro')
    },
    TIMEOUT_MS,
  )

  test(
    'template create without --fields places one signature field for role 0',
    async () => {
      const template = await runCliJson<CreatedTemplate>(dataDir, ['template', 'create', '--org', org.org_id, '--name', 'NDA', '--pdf', files.threePages])
      expect(Object.keys(template).sort()).toEqual(['created_at', 'id', 'name', 'page_count', 'roles'])
      expect(template).toMatchObject({ name: 'NDA', page_count: 3, roles: [0] })
      expect(template.id).toMatch(UUID)
      const list = await templates(org.api_key)
      expect(list.templates).toEqual([{ id: template.id, name: 'NDA', page_count: 3, created_at: template.created_at, roles: [0] }])
      // Role 0 alone: one signer is enough.
      const created = await server.request('/api/v1/documents', {
        method: 'POST',
        key: org.api_key,
        json: { template_id: template.id, signer: { email: signer } },
      })
      expect(created.status).toBe(201)
    },
    TIMEOUT_MS,
  )

  test(
    'template create with --fields keeps every field and reports the roles',
    async () => {
      const fieldsFile = writeJson(dataDir, 'two-party.json', [
        field({ role: 0, page: 1 }),
        field({ role: 0, type: 'date', page: 1, x: 300, y: 650, width: 120, height: 20 }),
        field({ role: 1, type: 'initials', page: 2, x: 72, y: 700, width: 60, height: 30 }),
        field({ role: 1, type: 'text', page: 2, x: 150, y: 700, width: 200, height: 20 }),
        field({ role: 1, type: 'checkbox', page: 2, x: PAGE.width - 20, y: PAGE.height - 20, width: 20, height: 20 }),
      ])
      const template = await runCliJson<CreatedTemplate>(dataDir, [
        'template',
        'create',
        '--org',
        org.org_id,
        '--name',
        'Two-party lease',
        '--pdf',
        files.twoPages,
        '--fields',
        fieldsFile,
      ])
      expect(template).toMatchObject({ name: 'Two-party lease', page_count: 2, roles: [0, 1] })
      expect((await templates(org.api_key)).total).toBe(2)

      const single = await server.request('/api/v1/documents', {
        method: 'POST',
        key: org.api_key,
        json: { template_id: template.id, signer: { email: signer } },
      })
      expect(single.status).toBe(400)
      expect(((await single.json()) as { error: string }).error).toContain('Party 2 (role 1)')
      const both = await server.request('/api/v1/documents', {
        method: 'POST',
        key: org.api_key,
        json: {
          template_id: template.id,
          signers: [
            { role: 0, email: signer },
            { role: 1, email: `bob-${randomUUID()}@example.com` },
          ],
        },
      })
      expect(both.status).toBe(201)
    },
    TIMEOUT_MS,
  )

  test(
    'mail list shows the invitations in the local outbox',
    async () => {
      const messages = await runCliJson<{ to: string; subject: string; text: string }[]>(dataDir, ['mail', 'list', '--to', signer, '--limit', '5'])
      expect(messages).toHaveLength(2)
      // The default titles name the first signer: "<template> — <first signer>".
      expect(messages.map((m) => m.subject).sort()).toEqual([
        expect.stringMatching(/^Acme CLI sent you "NDA — .+" to sign$/),
        expect.stringMatching(/^Acme CLI sent you "Two-party lease — .+" to sign$/),
      ])
      expect(messages.every((m) => m.to === signer)).toBe(true)
      // Kept in full by the log transport. On a shared PostgreSQL any server may deliver (and redact) them.
      if (!usingPostgres) expect(messages.every((m) => /\/sign\/[A-Za-z0-9_-]{43}/.test(m.text))).toBe(true)
      expect(await runCliJson<unknown[]>(dataDir, ['mail', 'list', '--to', signer, '--limit', '1'])).toHaveLength(1)
    },
    TIMEOUT_MS,
  )

  test(
    'key create adds a second key; key revoke disables only that one',
    async () => {
      const { api_key: second, scopes } = await runCliJson<{ api_key: string; scopes: string[] }>(dataDir, ['key', 'create', '--org', org.org_id])
      expect(second).toMatch(API_KEY)
      expect(scopes).toEqual(['read', 'write'])
      expect(second).not.toBe(org.api_key)
      expect((await templates(second)).total).toBe(2)

      const prefix = second.slice(0, 17)
      expect(await runCliJson(dataDir, ['key', 'revoke', '--org', org.org_id, '--prefix', prefix])).toEqual({ revoked: 1 })
      const revoked = await server.request('/api/v1/templates', { key: second })
      expect(revoked.status).toBe(401)
      expect(await revoked.json()).toEqual({ error: 'Invalid API key.', code: 'invalid_api_key' })
      expect((await templates(org.api_key)).total).toBe(2)

      const again = await runCli(dataDir, ['key', 'revoke', '--org', org.org_id, '--prefix', prefix])
      expect(again).toMatchObject({ code: 1, stdout: '' })
      expect(again.stderr).toContain(`No active key with prefix ${prefix}`)
    },
    TIMEOUT_MS,
  )

  test(
    'key create --scope read makes a read-only key: it reads, and any change is 403 insufficient_scope',
    async () => {
      const created = await runCliJson<{ api_key: string; scopes: string[] }>(dataDir, ['key', 'create', '--org', org.org_id, '--scope', 'read'])
      expect(created).toEqual({ api_key: expect.stringMatching(API_KEY) as unknown, scopes: ['read'] })
      expect((await templates(created.api_key)).total).toBe(2)
      const refused = await server.request('/api/v1/documents', { method: 'POST', key: created.api_key, json: {} })
      expect(refused.status).toBe(403)
      expect(await refused.json()).toEqual({ error: 'This API key is read-only: POST /api/v1/documents needs the write scope.', code: 'insufficient_scope' })

      const wrong = await runCli(dataDir, ['key', 'create', '--org', org.org_id, '--scope', 'write'])
      expect(wrong).toMatchObject({ code: 1, stdout: '' })
      expect(wrong.stderr).toContain('Allowed choices are read, read-write')
    },
    TIMEOUT_MS,
  )

  test(
    'key revoke only touches keys of the given org',
    async () => {
      const other = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Other'])
      const result = await runCli(dataDir, ['key', 'revoke', '--org', other.org_id, '--prefix', org.api_key.slice(0, 17)])
      expect(result).toMatchObject({ code: 1, stdout: '' })
      expect(result.stderr).toMatch(/No active key with prefix/)
      expect((await templates(org.api_key)).total).toBe(2)
    },
    TIMEOUT_MS,
  )

  test(
    'org set-plan changes the plan of an existing org',
    async () => {
      expect(await runCliJson(dataDir, ['org', 'set-plan', '--org', org.org_id, '--plan', 'team'])).toEqual({ org_id: org.org_id, plan: 'team' })
      expect((await templates(org.api_key)).total).toBe(2)
      expect(await runCliJson(dataDir, ['usage', 'show', '--org', org.org_id])).toMatchObject({ plan: 'team' })
    },
    TIMEOUT_MS,
  )

  test(
    "credits grant, usage show and the Free plan's one template",
    async () => {
      const free = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Free CLI'])
      const period = new Date().toISOString().slice(0, 7)
      expect(await runCliJson(dataDir, ['usage', 'show', '--org', free.org_id])).toMatchObject({
        org_id: free.org_id,
        plan: 'free',
        period,
        included_allowance: 3,
        included_used: 0,
        credit_balance: 0,
      })
      expect(await runCliJson(dataDir, ['credits', 'grant', '--org', free.org_id, '--packs', '2'])).toEqual({
        org_id: free.org_id,
        credits_granted: 50,
        credit_balance: 50,
      })
      // References are unique per source across the database (on PostgreSQL this one is shared by every run).
      const withReference = ['credits', 'grant', '--org', free.org_id, '--packs', '1', '--reference', `invoice-${randomUUID()}`]
      expect(await runCliJson(dataDir, withReference)).toEqual({ org_id: free.org_id, credits_granted: 25, credit_balance: 75 })
      expect(await runCliJson(dataDir, withReference)).toEqual({ org_id: free.org_id, credits_granted: 0, credit_balance: 75 })
      expect(await runCliJson(dataDir, ['usage', 'show', '--org', free.org_id, '--period', '2020-01'])).toMatchObject({
        period: '2020-01',
        included_used: 0,
        credit_balance: 75,
      })

      await runCliJson(dataDir, ['template', 'create', '--org', free.org_id, '--name', 'Only one', '--pdf', files.onePage])
      const second = await runCli(dataDir, ['template', 'create', '--org', free.org_id, '--name', 'One too many', '--pdf', files.onePage])
      expect(second).toMatchObject({ code: 1, stdout: '' })
      expect(second.stderr).toBe('error: A Free org can have one template; upgrade the plan to add more.\n')
    },
    TIMEOUT_MS,
  )

  test(
    'org set-spend-cap sets and removes the cap',
    async () => {
      expect(await runCliJson(dataDir, ['org', 'set-spend-cap', '--org', org.org_id, '--cents', '2500'])).toEqual({ org_id: org.org_id, spend_cap_cents: 2500 })
      const response = await server.request('/api/v1/billing/spend-cap', { key: org.api_key })
      expect(await response.json()).toEqual({ spend_cap_cents: 2500 })
      expect(await runCliJson(dataDir, ['org', 'set-spend-cap', '--org', org.org_id, '--cents', 'none'])).toEqual({ org_id: org.org_id, spend_cap_cents: null })
    },
    TIMEOUT_MS,
  )

  test(
    'webhook add registers an endpoint and prints its secret once',
    async () => {
      const added = await runCliJson<{ id: string; secret: string }>(dataDir, [
        'webhook',
        'add',
        '--org',
        org.org_id,
        '--url',
        'https://93.184.215.14/signet-events',
      ])
      expect(Object.keys(added).sort()).toEqual(['id', 'secret'])
      expect(added.id).toMatch(UUID)
      expect(added.secret.length).toBeGreaterThan(20)
    },
    TIMEOUT_MS,
  )

  test(
    'org verify-identity records the legal name sealing needs, valid 365 days',
    async () => {
      const pdf = { method: 'POST', key: org.api_key, headers: { 'content-type': 'application/pdf' }, body: readFileSync(files.onePage) }
      expect((await server.request('/api/v1/seals?title=Before', pdf)).status).toBe(412)
      const recorded = await runCliJson<Record<string, string>>(dataDir, [
        'org',
        'verify-identity',
        '--org',
        org.org_id,
        '--legal-name',
        '  Acme   Widgets Ltd ',
      ])
      expect(recorded).toMatchObject({ org_id: org.org_id, legal_name: 'Acme Widgets Ltd' })
      expect(Date.parse(recorded.valid_until ?? '') - Date.parse(recorded.identity_verified_at ?? '')).toBe(365 * 86_400_000)
      expect((await server.request('/api/v1/seals?title=After', pdf)).status).toBe(201)
    },
    TIMEOUT_MS,
  )

  describe('rejects bad input with a clear message, a non-zero exit and nothing on stdout', () => {
    type Case = [label: string, args: () => string[], message: RegExp]
    const pdfCase = (label: string, file: () => string, message: RegExp): Case => [
      label,
      () => ['template', 'create', '--org', org.org_id, '--name', 'Bad', '--pdf', file()],
      message,
    ]
    const fieldsCase = (label: string, fields: unknown, message: RegExp): Case => [
      label,
      () => {
        const path = join(dataDir, `fields-${randomUUID()}.json`)
        writeFileSync(path, typeof fields === 'string' ? fields : JSON.stringify(fields))
        return ['template', 'create', '--org', org.org_id, '--name', 'Bad', '--pdf', files.twoPages, '--fields', path]
      },
      message,
    ]
    const cases: Case[] = [
      pdfCase('a file that is not a PDF', () => writeJson(dataDir, 'not-a.pdf', { hello: 'world' }), /not a PDF/),
      pdfCase(
        'a truncated PDF',
        () => {
          const path = join(dataDir, 'truncated.pdf')
          const bytes = readFileSync(files.threePages)
          // Cut mid-file: the header is there, the later pages, the xref table and %%EOF are not.
          writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length * 0.6)))
          return path
        },
        /truncated|damaged|not a valid PDF/,
      ),
      pdfCase('a PDF file that does not exist', () => join(dataDir, 'missing.pdf'), /Cannot read the PDF file .*missing\.pdf: ENOENT/),
      fieldsCase('a field off the page', [field({ x: PAGE.width - 100, width: 180 })], /fields\[0\].*off page 1/),
      fieldsCase('a field below the page', [field({ page: 2, y: PAGE.height - 10 })], /fields\[0\].*off page 2/),
      fieldsCase('a page beyond the last', [field(), field({ page: 3 })], /fields\[1\].*page 3 does not exist.*2 pages/),
      fieldsCase('page 0 (pages are 1-based)', [field({ page: 0 })], /page/),
      fieldsCase('a role above 19', [field({ role: 20 })], /role/),
      fieldsCase('a negative role', [field({ role: -1 })], /role/),
      fieldsCase('an unknown field type', [field({ type: 'stamp' })], /type/),
      fieldsCase('an empty fields list', [], /fields/),
      fieldsCase('malformed JSON', '[{"role": 0, "type": "signature",', /not valid JSON/),
      [
        'a fields file that does not exist',
        () => ['template', 'create', '--org', org.org_id, '--name', 'Bad', '--pdf', files.onePage, '--fields', join(dataDir, 'nope.json')],
        /Cannot read the fields file .*nope\.json: ENOENT/,
      ],
      ['a template for an unknown org', () => ['template', 'create', '--org', randomUUID(), '--name', 'Bad', '--pdf', files.onePage], /Org .* not found/],
      ['an unknown plan', () => ['org', 'set-plan', '--org', org.org_id, '--plan', 'platinum'], /Allowed choices are free, pro, team, business/],
      ['set-plan on an unknown org', () => ['org', 'set-plan', '--org', randomUUID(), '--plan', 'pro'], /Org .* not found/],
      ['an org id that is not a UUID', () => ['key', 'create', '--org', 'acme'], /Org acme not found/],
      ['a key prefix that is too short', () => ['key', 'revoke', '--org', org.org_id, '--prefix', 'sgn_live_1a2b'], /8 hex characters/],
      ['an empty org name', () => ['org', 'create', '--name', '  '], /Org name must be 1 to 200 characters/],
      ['a missing required option', () => ['org', 'create'], /required option '--name <name>' not specified/],
      ['zero credit packs', () => ['credits', 'grant', '--org', org.org_id, '--packs', '0'], /must be an integer from 1 to 1000/],
      ['credits for an unknown org', () => ['credits', 'grant', '--org', randomUUID(), '--packs', '1'], /Org .* not found/],
      ['a negative spend cap', () => ['org', 'set-spend-cap', '--org', org.org_id, '--cents', '-5'], /whole number of US cents/],
      ['a spend cap in dollars', () => ['org', 'set-spend-cap', '--org', org.org_id, '--cents', '25.00'], /whole number of US cents/],
      ['a period that is not a month', () => ['usage', 'show', '--org', org.org_id, '--period', '2025-13'], /calendar month, YYYY-MM/],
      ['a webhook URL that is not a URL', () => ['webhook', 'add', '--org', org.org_id, '--url', 'not a url'], /not a valid absolute URL/],
      ['an empty legal name', () => ['org', 'verify-identity', '--org', org.org_id, '--legal-name', ' '], /legal name must be 1 to 200 characters/],
      ['an unknown command', () => ['org', 'delete'], /unknown command/],
    ]

    test.each(cases)(
      '%s',
      async (_label, args, message) => {
        const result = await runCli(dataDir, args())
        expect(result.stdout).toBe('')
        expect(result.code).not.toBe(0)
        expect(result.code).not.toBeNull()
        expect(result.stderr).toMatch(/^error: /)
        expect(result.stderr).toMatch(message)
        // A clear message, not a crash.
        expect(result.stderr).not.toMatch(/\n\s+at /)
      },
      TIMEOUT_MS,
    )

    test('none of the rejected templates was saved', async () => {
      expect((await templates(org.api_key)).total).toBe(2)
    })
  })

  test(
    'jobs run --now sends the reminders due at that instant (issue 22), through the running server',
    async () => {
      const template = await runCliJson<CreatedTemplate>(dataDir, ['template', 'create', '--org', org.org_id, '--name', 'Reminded', '--pdf', files.onePage])
      const to = `rita-${randomUUID()}@example.com`
      const sent = await server.request('/api/v1/documents', {
        method: 'POST',
        key: org.api_key,
        json: { template_id: template.id, signer: { email: to }, reminders: { first_after_days: 1, every_days: 1, max: 1 } },
      })
      expect(sent.status).toBe(201)
      const { id } = (await sent.json()) as { id: string }
      const document = (await (await server.request(`/api/v1/documents/${id}`, { key: org.api_key })).json()) as { created_at: string }
      const at = new Date(Date.parse(document.created_at) + 86_400_000 + 60_000).toISOString()
      expect(await runCliJson(dataDir, ['jobs', 'run', '--now', at])).toMatchObject({ at, reminders_sent: 1 })
      const mails = await runCliJson<{ subject: string }[]>(dataDir, ['mail', 'list', '--to', to])
      expect(mails.map((m) => m.subject.startsWith('Reminder: '))).toEqual([true, false])
      const bad = await runCli(dataDir, ['jobs', 'run', '--now', 'tomorrow'])
      expect(bad.code).not.toBe(0)
      expect(bad.stderr).toMatch(/date-time/)
    },
    TIMEOUT_MS,
  )

  test(
    'the server is still healthy and stops cleanly',
    async () => {
      expect((await server.request('/healthz')).status).toBe(200)
      expect(await server.stop()).toEqual({ code: 0, signal: null })
    },
    TIMEOUT_MS,
  )
})

describe('CLI with no server running', () => {
  afterAll(cleanUpProcesses, TIMEOUT_MS)

  test(
    'opens the database itself; a server started afterwards sees the data',
    async () => {
      const dataDir = makeTempDir('cli-offline')
      const pdf = await writePdf(dataDir, 'agreement.pdf', 2)
      const org = await runCliJson<CreatedOrg>(dataDir, ['org', 'create', '--name', 'Offline Org', '--plan', 'team'])
      expect(org.api_key).toMatch(API_KEY)
      const template = await runCliJson<CreatedTemplate>(dataDir, ['template', 'create', '--org', org.org_id, '--name', 'Offline NDA', '--pdf', pdf])
      expect(template).toMatchObject({ page_count: 2, roles: [0] })
      if (!usingPostgres) {
        // Each command released the instance lock and served no socket.
        expect(existsSync(join(dataDir, 'instance.lock'))).toBe(false)
        expect(existsSync(adminSocketPath(dataDir))).toBe(false)
      }
      expect(await runCliJson(dataDir, ['org', 'set-plan', '--org', org.org_id, '--plan', 'pro'])).toEqual({ org_id: org.org_id, plan: 'pro' })
      // The plan is not visible over HTTP; read it from the database, which no one holds now.
      const database = await openInstanceDatabase(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL }))
      try {
        expect(await database.db.select({ plan: orgs.plan }).from(orgs).where(eq(orgs.id, org.org_id))).toEqual([{ plan: 'pro' }])
      } finally {
        await database.close()
      }

      const server = await startServer({ dataDir })
      const response = await server.request('/api/v1/templates', { key: org.api_key })
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({
        templates: [{ id: template.id, name: 'Offline NDA', page_count: 2 }],
        total: 1,
        org_name: 'Offline Org',
      })
      // Now the same CLI goes through the running server.
      const { api_key: second } = await runCliJson<{ api_key: string }>(dataDir, ['key', 'create', '--org', org.org_id])
      expect((await server.request('/api/v1/templates', { key: second })).status).toBe(200)
      expect(await server.stop()).toEqual({ code: 0, signal: null })
    },
    TIMEOUT_MS,
  )
})

describe.skipIf(usingPostgres)('CLI while a server is starting', () => {
  afterAll(cleanUpProcesses, TIMEOUT_MS)

  /**
   * A server takes the instance lock, then spends seconds opening the database before its admin
   * socket is up. This test process plays that server with the real lock and socket code; the
   * socket comes up only once the CLI has (on any sane machine) found none and is waiting for
   * the lock. Either way the command must run, exactly once, in the server.
   */
  test(
    'a command issued before the admin socket is up runs once the server serves it',
    async () => {
      const dataDir = makeTempDir('cli-starting')
      const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' })
      const services = await createServices(config, await openInstanceDatabase(config), createLogger(config))
      try {
        const cli = runCli(dataDir, ['org', 'create', '--name', 'Early bird'])
        await new Promise((resolve) => setTimeout(resolve, 8_000))
        const socket = await startAdminSocket(services)
        const result = await cli
        await socket.close()
        expect(result.stderr).toBe('')
        expect(result.code).toBe(0)
        const org = JSON.parse(result.stdout) as CreatedOrg
        const { api_key } = (await executeAdminCommand(services, { name: 'key.create', orgId: org.org_id })) as { api_key: string }
        expect(api_key).toMatch(API_KEY)
      } finally {
        await services.close()
      }
    },
    TIMEOUT_MS,
  )
})

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { cleanUpProcesses, makeTempDir, runCliJson, startServer, writePdf, type ServerProcess } from '../../server/test/helpers/processes.ts'
import { closedPortUrl } from '../../server/test/helpers/seals.ts'
import { pngDataUrl } from '../../server/test/helpers/signing.ts'
import { buildSignet, createCliOrg, runSignet, signerFromOutbox, uniqueEmail, type CliOrg } from './helpers/signet-cli.ts'

/**
 * Every command of `signet` as a user runs it (node packages/cli/bin/signet.mjs, a child process)
 * against the server as `npm start` runs it: output for a person and for scripts (--json), exit codes,
 * and the errors a person must be able to act on.
 */

const TIMEOUT_MS = 180_000
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

describe('signet commands', () => {
  let server: ServerProcess
  let org: CliOrg
  let home: string

  beforeAll(async () => {
    home = makeTempDir('signet-cli')
    await buildSignet()
    server = await startServer({ dataDir: makeTempDir('signet-cli-data') })
    org = await createCliOrg(server, home)
  }, TIMEOUT_MS)
  afterAll(cleanUpProcesses, TIMEOUT_MS)

  test('--version prints the package version', async () => {
    expect(await runSignet(['--version'])).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' })
  })

  test('without an API key, with a wrong one, and with no server: exit 3, 3 and 4 and what to do', async () => {
    const none = await runSignet(['templates', 'list'], { XDG_CONFIG_HOME: home, SIGNET_URL: server.url })
    expect(none).toMatchObject({ code: 3, stdout: '' })
    expect(none.stderr).toBe('No API key: set SIGNET_API_KEY, or run `signet login` once (the key is stored in your config directory).\n')

    const wrong = await runSignet(['templates', 'list'], { ...org.env, SIGNET_API_KEY: `sgn_live_${'0'.repeat(64)}` })
    expect(wrong).toMatchObject({ code: 3, stdout: '' })
    expect(wrong.stderr).toBe(
      'Signet refused: Invalid API key. (invalid_api_key) — check SIGNET_API_KEY, or run `signet login` with a key from Settings → API keys.\n',
    )

    const unreachable = new URL(await closedPortUrl()).origin
    const down = await runSignet(['usage', '--json'], { ...org.env, SIGNET_URL: unreachable })
    expect(down.code).toBe(4)
    expect(JSON.parse(down.stderr)).toEqual({
      error: `Cannot reach Signet at ${unreachable} (ECONNREFUSED) — is the server running? Set SIGNET_URL, or run \`signet login --url <url>\`.`,
      code: 'ECONNREFUSED',
      exit_code: 4,
    })
    expect(down.stderr).not.toMatch(/\n\s+at /)
  })

  test('bad arguments exit 2 with the reason, before any request', async () => {
    const cases: [string[], RegExp][] = [
      [['send', '--template', 'nope', '--to', 'ann@example.com'], /"nope" is not an id/],
      [['send', '--template', org.template.id, '--to', 'ann@'], /"ann@" is not an e-mail address/],
      [['send', '--template', org.template.id], /Name the signers: --to/],
      [['send', '--to', 'ann@example.com'], /required option '--template <id>' not specified/],
      [['status'], /missing required argument 'id'/],
      [['frobnicate'], /unknown command 'frobnicate'/],
      [['trigger', 'document.exploded'], /Unknown event "document.exploded": use one of document.viewed, document.signed/],
      [['completion', 'fish'], /Allowed choices are bash, zsh/],
      [['seal', join(home, 'missing.pdf')], /Cannot read .*missing\.pdf: no such file/],
    ]
    for (const [args, message] of cases) {
      const result = await runSignet(args, org.env)
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' })
      expect(result.stderr).toMatch(message)
    }
  })

  test('templates list: a table for people, the templates for scripts', async () => {
    const human = await runSignet(['templates', 'list'], org.env)
    expect(human).toMatchObject({ code: 0, stderr: '' })
    const [header, row, ...rest] = human.stdout.trimEnd().split('\n')
    expect(header).toMatch(/^ID {36}NAME {2}PAGES {2}SIGNERS {2}CREATED$/)
    expect(row).toMatch(new RegExp(`^${org.template.id}  NDA   1      Party 1  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d$`))
    expect(rest).toEqual([])
    // No colours when stdout is not a terminal.
    expect(human.stdout).not.toContain('\u001b[')

    const json = await runSignet(['templates', 'list', '--json'], org.env)
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual([{ id: org.template.id, name: 'NDA', page_count: 1, roles: [0], created_at: org.template.created_at }])
  })

  test('send, status, void: human and --json, and the refusal of a second void', async () => {
    const ann = uniqueEmail('ann')
    const sent = await runSignet(['send', '--template', org.template.id, '--to', `${ann}:Ann Lee`, '--title', 'Lease 12'], org.env)
    expect(sent).toMatchObject({ code: 0, stderr: '' })
    const id = /^Sent ([0-9a-f-]{36}) to Ann Lee <(.+)>\.$/m.exec(sent.stdout)?.[1] ?? ''
    expect(sent.stdout).toBe(`Sent ${id} to Ann Lee <${ann}>.\nFollow it with: signet status ${id} --watch\n`)

    const status = await runSignet(['status', id], org.env)
    expect(status.code).toBe(0)
    const [title, meta, blank, header] = status.stdout.split('\n')
    expect([title, blank]).toEqual(['Lease 12  sent', ''])
    expect(meta).toMatch(new RegExp(`^id ${id} · created \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d · expires —$`))
    expect(header).toMatch(/^SIGNER +ROLE +STATUS +WHEN$/)
    expect(status.stdout).toContain(`Ann Lee <${ann}>  Party 1  pending  —`)
    const statusJson = JSON.parse((await runSignet(['status', id, '--json'], org.env)).stdout) as { id: string; status: string; signers: { email: string }[] }
    expect(statusJson).toMatchObject({ id, status: 'sent', title: 'Lease 12', signers: [{ email: ann, name: 'Ann Lee', status: 'pending' }] })

    const bob = uniqueEmail('bob')
    const two = await runSignet(['send', '--template', org.template.id, '--signer', `0=${bob}`, '--json'], org.env)
    expect(two.code).toBe(0)
    const created = JSON.parse(two.stdout) as { id: string; status: string }
    expect(created).toMatchObject({ id: expect.stringMatching(UUID) as unknown, status: 'sent' })

    // A role by its name in the template (and a name it does not have: exit 2).
    const named = await server.request(`/api/v1/templates/${org.template.id}/roles`, {
      method: 'PUT',
      key: org.api_key,
      json: { roles: [{ role: 0, name: 'Tenant' }] },
    })
    expect(named.status).toBe(200)
    const tenant = await runSignet(['send', '--template', org.template.id, '--signer', `tenant=${uniqueEmail('tenant')}:Tia`, '--json'], org.env)
    expect(tenant.code).toBe(0)
    const landlord = await runSignet(['send', '--template', org.template.id, '--signer', `Landlord=${uniqueEmail('landlord')}`], org.env)
    expect(landlord).toMatchObject({ code: 2, stdout: '', stderr: '--signer: the template has no role named "Landlord" (its roles: Tenant).\n' })
    await server.request(`/api/v1/templates/${org.template.id}/roles`, { method: 'PUT', key: org.api_key, json: { roles: [] } })
    const tenantDocument = JSON.parse((await runSignet(['status', (JSON.parse(tenant.stdout) as { id: string }).id, '--json'], org.env)).stdout) as unknown
    expect(tenantDocument).toMatchObject({ signers: [{ name: 'Tia', role: 0, role_name: 'Tenant' }] })

    expect(await runSignet(['void', id], org.env)).toMatchObject({ code: 0, stdout: `Voided ${id}: its signing links no longer work.\n`, stderr: '' })
    expect(JSON.parse((await runSignet(['void', created.id, '--json'], org.env)).stdout)).toEqual({ id: created.id, status: 'voided' })
    const again = await runSignet(['void', id], org.env)
    expect(again).toMatchObject({ code: 1, stdout: '' })
    expect(again.stderr).toMatch(/^Signet refused: .+ \((invalid_request|conflict)\) — .+\.\n$/)

    const unknown = await runSignet(['status', '00000000-0000-4000-8000-000000000000'], org.env)
    expect(unknown).toMatchObject({ code: 1, stdout: '' })
    expect(unknown.stderr).toMatch(/^Signet refused: .+ \(not_found\) — check the id/)
  })

  test('status --watch prints each change and exits once the document is final; download saves the signed PDF', async () => {
    const ann = uniqueEmail('watch')
    const id = (JSON.parse((await runSignet(['send', '--template', org.template.id, '--to', ann, '--json'], org.env)).stdout) as { id: string }).id
    const early = await runSignet(['download', id], org.env)
    expect(early).toMatchObject({ code: 1, stdout: '' })
    expect(early.stderr).toMatch(/^Signet refused: /)

    const { startSignet } = await import('./helpers/signet-cli.ts')
    // Its live events tell --watch when to read again: without them it would read every 30 s.
    const watch = startSignet(['status', id, '--watch'], org.env)
    await expect.poll(() => watch.stdout(), { timeout: 20_000 }).toContain('sent')
    const signer = await signerFromOutbox(server, ann)
    expect((await signer.page()).status).toBe(200)
    expect((await signer.view()).status).toBeLessThan(300)
    expect((await signer.finish({ '0': pngDataUrl() })).status).toBe(200)
    const signedAt = performance.now()
    const watched = await watch.exited
    expect(performance.now() - signedAt).toBeLessThan(5_000)
    expect(watched).toMatchObject({ code: 0, stderr: '' })
    expect(watched.stdout).toMatch(new RegExp(`\\d\\d:\\d\\d:\\d\\d  ${ann}  signed\\n\\d\\d:\\d\\d:\\d\\d  document  completed\\n$`))

    const output = join(home, 'signed.pdf')
    await expect.poll(async () => (await runSignet(['download', id, '-o', output, '--json'], org.env)).code, { timeout: 60_000, interval: 1000 }).toBe(0)
    expect(readFileSync(output).subarray(0, 5).toString()).toBe('%PDF-')
    const human = await runSignet(['download', id, '-o', output], org.env)
    expect(human.stdout).toBe(`Saved the signed PDF to ${output} (${statSync(output).size.toLocaleString('en')} bytes).\n`)
  })

  test('usage: a summary for people, the usage report for scripts', async () => {
    const human = await runSignet(['usage'], org.env)
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^Plan +business\nPeriod +\d{4}-\d\d\n/)
    const json = JSON.parse((await runSignet(['usage', '--json'], org.env)).stdout) as Record<string, unknown>
    expect(json).toMatchObject({ org_id: org.org_id, plan: 'business' })
  })

  test('seal writes the sealed PDF and the badge; verify checks it offline with the verifier exit codes', async () => {
    await runCliJson(server.dataDir, ['org', 'verify-identity', '--org', org.org_id, '--legal-name', 'Acme Widgets Ltd'])
    const file = await writePdf(home, 'contract.pdf', 1)
    const sealed = await runSignet(['seal', file, '--json'], org.env)
    expect(sealed).toMatchObject({ code: 0, stderr: '' })
    const result = JSON.parse(sealed.stdout) as { seal_status: string; sealed_file: string; badge_file: string }
    expect(result).toMatchObject({ seal_status: 'sealed', sealed_file: join(home, 'contract.sealed.pdf'), badge_file: join(home, 'contract.badge.png') })
    expect(readFileSync(result.sealed_file).subarray(0, 5).toString()).toBe('%PDF-')
    expect(readFileSync(result.badge_file).subarray(1, 4).toString()).toBe('PNG')

    const untrusted = await runSignet(['verify', result.sealed_file], org.env)
    expect(untrusted.code).toBe(3)
    expect(untrusted.stdout).toMatch(/^Verdict: verified-untrusted-root\n/)
    const root = join(home, 'root.pem')
    writeFileSync(root, await (await server.request('/.well-known/signet-root.pem')).text())
    const trusted = await runSignet(['verify', result.sealed_file, '--trust', root, '--json'], {})
    expect(trusted.code).toBe(0)
    expect(JSON.parse(trusted.stdout)).toMatchObject({ verdict: 'verified' })
    expect((await runSignet(['verify', file], {})).code).toBe(8)
    const notPdf = join(home, 'notes.pdf')
    writeFileSync(notPdf, 'hello')
    expect(await runSignet(['seal', notPdf], org.env)).toMatchObject({ code: 2, stderr: `${notPdf} is not a PDF (no %PDF- header).\n` })
  })

  test('login checks the key and stores it readable by its owner only; logout forgets it', async () => {
    const env = { XDG_CONFIG_HOME: home, SIGNET_URL: server.url }
    const refused = await runSignet(['login', '--api-key', `sgn_live_${'1'.repeat(64)}`], env)
    expect(refused.code).toBe(3)
    expect(existsSync(join(home, 'signet/config.json'))).toBe(false)

    const login = await runSignet(['login'], env, `${org.api_key}\n`)
    expect(login).toMatchObject({ code: 0, stderr: '' })
    expect(login.stdout).toMatch(new RegExp(`^Logged in to ${server.url} \\(workspace ${org.org_id}, business plan\\)\\.`))
    const path = join(home, 'signet/config.json')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(join(home, 'signet')).mode & 0o777).toBe(0o700)
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ url: server.url, apiKey: org.api_key })
    // No SIGNET_* variables: the stored login is used.
    expect((await runSignet(['templates', 'list', '--json'], { XDG_CONFIG_HOME: home })).code).toBe(0)

    expect(await runSignet(['logout'], { XDG_CONFIG_HOME: home })).toMatchObject({ code: 0, stdout: `Logged out: ${path} removed.\n` })
    expect(existsSync(path)).toBe(false)
    expect((await runSignet(['templates', 'list'], { XDG_CONFIG_HOME: home })).code).toBe(3)
  })

  test('completion prints a script bash can load, naming every command', async () => {
    const script = await runSignet(['completion', 'bash'])
    expect(script.code).toBe(0)
    expect(script.stdout).toContain('complete -F _signet signet')
    expect(script.stdout).toContain('"templates") words="list --help"')
    for (const command of ['login', 'send', 'bulk', 'status', 'download', 'void', 'seal', 'verify', 'usage', 'listen', 'trigger'])
      expect(script.stdout).toContain(command)
    expect((await runSignet(['completion', 'zsh'])).stdout).toMatch(/^#compdef signet\n/)
  })
})

import { randomUUID } from 'node:crypto'
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { cleanUpProcesses, makeTempDir, startServer, type ServerProcess } from '../../server/test/helpers/processes.ts'
import { buildSignet, createCliOrg, runSignet, startSignet, type CliOrg } from './helpers/signet-cli.ts'

/**
 * `signet bulk` against the server as `npm start` runs it: a 2,000-row send stopped with Ctrl-C
 * halfway and run again sends every row exactly once; bad rows are reported and the rest sent;
 * a file too large for one bulk send is refused before it is read.
 */

const TIMEOUT_MS = 180_000
const ROWS = 2000

interface ListPage {
  documents: { recipients: { email: string }[] }[]
  has_more: boolean
}

/** How many documents each address got, over every page of the org's documents. */
async function documentsPerRecipient(server: ServerProcess, apiKey: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  for (let offset = 0; ; offset += 100) {
    const response = await server.request(`/api/v1/documents?limit=100&offset=${offset}`, { key: apiKey })
    expect(response.status).toBe(200)
    const page = (await response.json()) as ListPage
    for (const document of page.documents) for (const { email } of document.recipients) counts.set(email, (counts.get(email) ?? 0) + 1)
    if (!page.has_more) return counts
  }
}

interface BulkSummary {
  rows: number
  sent: number
  sent_by_earlier_runs: number
  not_sent: number
  errors: { row: number; email: string; error: string }[]
}

describe('signet bulk', () => {
  let server: ServerProcess
  let org: CliOrg
  let dir: string

  beforeAll(async () => {
    dir = makeTempDir('signet-bulk')
    await buildSignet()
    server = await startServer({ dataDir: makeTempDir('signet-bulk-data'), env: { RATE_LIMITS: 'off' } })
    org = await createCliOrg(server, dir)
  }, TIMEOUT_MS)
  afterAll(cleanUpProcesses, TIMEOUT_MS)

  test(
    `${ROWS} rows stopped with Ctrl-C halfway and run again: every row sent exactly once`,
    async () => {
      const tag = randomUUID().slice(0, 8)
      const emails = Array.from({ length: ROWS }, (_, i) => `row${i}.${tag}@example.com`)
      const csv = join(dir, 'recipients.csv')
      writeFileSync(csv, `email,name\n${emails.map((email, i) => `${email},Recipient ${i}`).join('\n')}\n`)
      const state = `${csv}.signet-bulk.json`
      const finishedBatches = () => {
        try {
          return Object.keys((JSON.parse(readFileSync(state, 'utf8')) as { finished: object }).finished).length
        } catch {
          return 0
        }
      }

      const first = startSignet(['bulk', '--template', org.template.id, csv], org.env)
      await expect.poll(finishedBatches, { timeout: 90_000, interval: 20 }).toBeGreaterThanOrEqual(10)
      first.child.kill('SIGINT')
      const interrupted = await first.exited
      expect(interrupted.code).toBe(130)
      expect(interrupted.stderr).toMatch(/Interrupted: \d+ of 2000 rows sent\. Run the same command again to send the rest; nobody is sent twice\.\n$/)
      expect(interrupted.stderr).not.toMatch(/\n\s+at /)
      const done = finishedBatches()
      expect(done).toBeGreaterThanOrEqual(10)
      expect(done).toBeLessThan(20)

      const resumed = await runSignet(['bulk', '--template', org.template.id, csv, '--json'], org.env)
      expect(resumed).toMatchObject({ code: 0 })
      const summary = JSON.parse(resumed.stdout) as BulkSummary
      expect(summary).toMatchObject({ rows: ROWS, sent: ROWS, not_sent: 0, errors: [] })
      expect(summary.sent_by_earlier_runs).toBe(done * 100)

      const counts = await documentsPerRecipient(server, org.api_key)
      expect(counts.size).toBe(ROWS)
      expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([])
      expect(emails.every((email) => counts.get(email) === 1)).toBe(true)

      // A third run finds every batch finished and sends nobody.
      const again = await runSignet(['bulk', '--template', org.template.id, csv], org.env)
      expect(again).toMatchObject({ code: 0, stdout: `Sent 2,000 of 2,000 rows (2,000 by an earlier run).\n` })
      expect((await documentsPerRecipient(server, org.api_key)).size).toBe(ROWS)
    },
    TIMEOUT_MS,
  )

  test('bad rows are reported by number and the others sent (exit 5)', async () => {
    const tag = randomUUID().slice(0, 8)
    const csv = join(dir, 'mixed.csv')
    writeFileSync(
      csv,
      [
        'Name,Email',
        `Ann,ann.${tag}@example.com`,
        'Bob,bob-at-example.com',
        '',
        `"Cy, Jr.",cy.${tag}@example.com`,
        `Dee,dee.${tag}@example.com,extra`,
        `Ann again,ANN.${tag}@example.com`,
        `"Eve,eve.${tag}@example.com`,
      ].join('\n'),
    )
    const result = await runSignet(['bulk', '--template', org.template.id, csv], org.env)
    expect(result.code).toBe(5)
    expect(result.stdout).toBe(
      [
        'Sent 2 of 7 rows.',
        '5 rows were not sent:',
        '  row 2: "bob-at-example.com" is not a valid e-mail address',
        '  row 3: empty row',
        '  row 5: the row has more columns than the header',
        "  row 6: repeats row 1's address (each address gets one document)",
        '  row 7: a quoted value is never closed',
        '',
      ].join('\n'),
    )
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  test('a 50 MB CSV is refused before it is read; a CSV without an email column too (exit 2)', async () => {
    const big = join(dir, 'big.csv')
    const fd = openSync(big, 'w')
    const line = Buffer.from(`${'x'.repeat(80)}@example.com,Someone With A Name\n`)
    const chunk = Buffer.concat(Array.from({ length: 10_000 }, () => line))
    for (let written = 0; written < 50 * 1024 * 1024; written += chunk.length) writeSync(fd, chunk)
    closeSync(fd)
    const result = await runSignet(['bulk', '--template', org.template.id, big], org.env)
    expect(result).toMatchObject({ code: 2, stdout: '' })
    expect(result.stderr).toMatch(/^.*big\.csv is 5\d\.\d MB: a bulk send takes at most 10,000 rows \(files up to 5 MB\)\. Split it into smaller files\.\n$/)

    const headerless = join(dir, 'headerless.csv')
    writeFileSync(headerless, 'ann@example.com,Ann\n')
    const noHeader = await runSignet(['bulk', '--template', org.template.id, headerless], org.env)
    expect(noHeader).toMatchObject({ code: 2, stdout: '' })
    expect(noHeader.stderr).toContain('needs a header row with an "email" column')
  })
})

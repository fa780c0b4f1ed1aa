import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, test } from 'vitest'
import { buildServer } from '../scripts/build-server.mjs'
import { loadConfig } from '../src/config.ts'
import { cleanUpProcesses, makeTempDir, npmStartArgv, REPO_ROOT, startServer, STARTUP_TIMEOUT_MS, usingPostgres } from './helpers/processes.ts'

/**
 * Several servers on one PostgreSQL database (the per-file one DATABASE_URL names): a node whose
 * PUBLIC_URL, seal key, identity-document key or file store differs from a running node's is refused at start.
 * On PGlite there is one process, so nothing to check.
 */
const IDENTITY_DOCUMENT_KEY = randomBytes(32).toString('base64')
const REFUSAL_TIMEOUT_MS = 60_000
// CLUSTER_CHECK stated: test rigs may turn it off for the servers they start.
const shared = { PUBLIC_URL: 'https://a.example', IDENTITY_DOCUMENT_KEY, CLUSTER_CHECK: 'on' }

afterAll(cleanUpProcesses)

/** Runs `npm start`'s command expecting a refusal: its exit code and stderr. */
async function refusedStart(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  await buildServer()
  const child = spawn(process.execPath, npmStartArgv(), {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: makeTempDir('cluster-refused'), LOG_LEVEL: 'warn', PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  // A refused start ends within seconds; one that is not refused is killed here.
  const timer = setTimeout(() => child.kill('SIGKILL'), REFUSAL_TIMEOUT_MS)
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  clearTimeout(timer)
  return { code, stderr }
}

interface NodeRow {
  id: string
  public_url: string
  fingerprints: Record<string, string>
}

async function nodeRows(): Promise<NodeRow[]> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await client.connect()
  try {
    return (await client.query<NodeRow>('SELECT id, public_url, fingerprints FROM cluster_nodes ORDER BY started_at')).rows
  } finally {
    await client.end()
  }
}

/** A seal P12 with a key of its own (a self-signed certificate is enough to be told apart). */
function otherSealP12(): string {
  const dir = makeTempDir('cluster-p12')
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    '/CN=Other Seal',
    '-days',
    '30',
    '-keyout',
    'k.pem',
    '-out',
    'c.pem',
  )
  openssl('pkcs12', '-export', '-inkey', 'k.pem', '-in', 'c.pem', '-passout', 'pass:pw', '-out', 'seal.p12')
  return join(dir, 'seal.p12')
}

test('CLUSTER_CHECK is on unless set to off', () => {
  expect(loadConfig({}).clusterCheck).toBe(true)
  expect(loadConfig({ CLUSTER_CHECK: 'off' }).clusterCheck).toBe(false)
  expect(() => loadConfig({ CLUSTER_CHECK: 'no' })).toThrow('CLUSTER_CHECK must be on or off (got "no")')
})

describe.skipIf(!usingPostgres)('servers on one database', () => {
  test(
    'a node with another PUBLIC_URL, seal key, identity-document key or file store is refused while one runs; the same settings join; alone, it starts',
    async () => {
      const first = await startServer({ dataDir: makeTempDir('cluster-a'), env: shared })
      const [row] = await nodeRows()
      expect(row?.public_url).toBe('https://a.example')
      // Digests, never the values.
      expect(Object.keys(row?.fingerprints ?? {}).sort()).toEqual(['BLOB_STORE', 'IDENTITY_DOCUMENT_KEY', 'PUBLIC_URL', 'SEAL_P12'])
      expect(JSON.stringify(row)).not.toContain(IDENTITY_DOCUMENT_KEY)

      const otherUrl = await refusedStart({ ...shared, PUBLIC_URL: 'https://b.example' })
      expect(otherUrl.code).toBe(1)
      expect(otherUrl.stderr).toContain(`PUBLIC_URL differs from the running server ${row?.id} (https://a.example): every server must have the same PUBLIC_URL`)

      const otherSeal = await refusedStart({ ...shared, SEAL_P12: otherSealP12(), SEAL_P12_PASSWORD: 'pw' })
      expect(otherSeal.code).toBe(1)
      expect(otherSeal.stderr).toContain(`SEAL_P12 differs from the running server ${row?.id} (https://a.example): every server must have the same SEAL_P12`)

      // Without IDENTITY_DOCUMENT_KEY a node would make its own key file in its own DATA_DIR.
      const ownKeyFile = await refusedStart({ PUBLIC_URL: 'https://a.example', CLUSTER_CHECK: 'on' })
      expect(ownKeyFile.code).toBe(1)
      expect(ownKeyFile.stderr).toContain('IDENTITY_DOCUMENT_KEY differs from the running server')

      // Files in a bucket beside files in rows: refused before the bucket is even asked (nothing listens on port 9).
      const otherStore = await refusedStart({ ...shared, BLOB_STORE: 's3', S3_BUCKET: 'files', S3_ENDPOINT: 'http://127.0.0.1:9' })
      expect(otherStore.code).toBe(1)
      expect(otherStore.stderr).toContain(
        `BLOB_STORE differs from the running server ${row?.id} (https://a.example): every server must have the same BLOB_STORE`,
      )

      const second = await startServer({ dataDir: makeTempDir('cluster-a2'), env: shared })
      expect(await nodeRows()).toHaveLength(2)
      expect(await first.stop()).toEqual({ code: 0, signal: null })
      expect(await second.stop()).toEqual({ code: 0, signal: null })
      // A clean stop removes the node: a changed PUBLIC_URL starts once no other node runs.
      expect(await nodeRows()).toEqual([])
      const moved = await startServer({ dataDir: makeTempDir('cluster-b'), env: { ...shared, PUBLIC_URL: 'https://b.example' } })
      expect((await nodeRows()).map((r) => r.public_url)).toEqual(['https://b.example'])
      expect(await moved.stop()).toEqual({ code: 0, signal: null })
    },
    4 * STARTUP_TIMEOUT_MS,
  )
})

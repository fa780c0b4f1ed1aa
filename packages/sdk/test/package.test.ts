import { execFile } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { cleanUpProcesses, makeTempDir, REPO_ROOT } from '../../server/test/helpers/processes.ts'

/**
 * The SDK as `npm install @signet/sdk` gets it: packed with `npm pack` (which builds dist/ first),
 * unpacked into a project outside the workspace, then loaded by plain Node (no TypeScript loader, no
 * `source` condition) and type-checked by tsc as an integrator's project would.
 */

const SDK_ROOT = join(REPO_ROOT, 'packages/sdk')
const run = promisify(execFile)
/** Without the workspace's NODE_OPTIONS (a loader or --conditions would hide a broken package). */
const plainEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS'))
/** A child's bound: tsc takes about 6 s alone, 15–30 s on 2 cores shared with other suites. */
const RUN_MS = 60_000

let project: string
let packed: string[]

beforeAll(async () => {
  const tarballs = makeTempDir('sdk-tarball')
  await run('npm', ['pack', '--silent', '--pack-destination', tarballs], { cwd: SDK_ROOT, env: plainEnv, timeout: 90_000 })
  const [tarball] = readdirSync(tarballs).filter((name) => name.endsWith('.tgz'))
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${tarballs}`)
  const { stdout } = await run('tar', ['-tzf', join(tarballs, tarball)])
  packed = stdout.split('\n').filter((line) => line && !line.endsWith('/'))

  project = makeTempDir('sdk-consumer')
  const installed = join(project, 'node_modules/@signet/sdk')
  mkdirSync(installed, { recursive: true })
  await run('tar', ['-xzf', join(tarballs, tarball), '-C', installed, '--strip-components=1'])
  // The package's one dependency, and the types a Node project has, from the workspace (no network).
  for (const dependency of ['openapi-fetch', '@types/node']) {
    mkdirSync(join(project, 'node_modules', dependency, '..'), { recursive: true })
    symlinkSync(join(REPO_ROOT, 'node_modules', dependency), join(project, 'node_modules', dependency))
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
}, 120_000)

afterAll(cleanUpProcesses)

/** Every file under a folder, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
}

test('the tarball holds the sources as committed, one .js and one .d.ts per source module, and nothing else', () => {
  const sources = filesUnder(join(SDK_ROOT, 'src'))
  const expected = [
    'package.json',
    'README.md',
    ...sources.map((file) => `src/${file}`),
    ...sources.flatMap((file) => [`dist/${file.replace(/\.ts$/, '.js')}`, `dist/${file.replace(/\.ts$/, '.d.ts')}`]),
  ]
  expect(packed.map((file) => file.replace(/^package\//, '')).sort()).toEqual(expected.sort())
  for (const file of sources) {
    const installed = readFileSync(join(project, 'node_modules/@signet/sdk/src', file), 'utf8')
    expect(installed === readFileSync(join(SDK_ROOT, 'src', file), 'utf8'), `src/${file} in the tarball differs from the workspace's`).toBe(true)
  }
})

test(
  'plain Node imports @signet/sdk and @signet/sdk/openapi from the tarball and reads a document',
  async () => {
    const requests: { method?: string; url?: string; headers: IncomingHttpHeaders }[] = []
    const document = { id: 'doc_x', status: 'sent', title: 'NDA — Ann Lee', signers: [{ email: 'ann.lee@example.com', status: 'pending' }] }
    const server: Server = createServer((request, response) => {
      requests.push({ method: request.method, url: request.url, headers: request.headers })
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      writeFileSync(
        join(project, 'read-document.mjs'),
        [
          "import { Signet, SignetError } from '@signet/sdk'",
          "import * as openapi from '@signet/sdk/openapi'",
          "const signet = new Signet({ apiKey: 'sgn_live_package', baseUrl: process.env.SIGNET_URL })",
          "const document = await signet.documents.get('doc_x')",
          "const loaded = import.meta.resolve('@signet/sdk')",
          'console.log(JSON.stringify({ document, loaded, signetError: typeof SignetError, openapi: Object.keys(openapi) }))',
        ].join('\n'),
      )
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const { stdout } = await run(process.execPath, ['read-document.mjs'], { cwd: project, env: { ...plainEnv, SIGNET_URL: url }, timeout: RUN_MS })
      expect(JSON.parse(stdout)).toEqual({
        document,
        loaded: new URL('node_modules/@signet/sdk/dist/index.js', `file://${project}/`).href,
        signetError: 'function',
        // The OpenAPI types are types only: their module loads, and exports nothing at run time.
        openapi: [],
      })
      expect(requests.map(({ method, url, headers }) => ({ method, url, authorization: headers.authorization }))).toEqual([
        { method: 'GET', url: '/api/v1/documents/doc_x', authorization: 'Bearer sgn_live_package' },
      ])
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  },
  RUN_MS,
)

test(
  "a TypeScript project (moduleResolution node16) type-checks against the package's declarations",
  async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'Node16', moduleResolution: 'Node16', strict: true, noEmit: true, lib: ['ES2022'], types: ['node'] },
        files: ['consumer.ts'],
      }),
    )
    writeFileSync(
      join(project, 'consumer.ts'),
      [
        "import { Signet, SignetError, type Document } from '@signet/sdk'",
        "import type { paths } from '@signet/sdk/openapi'",
        "const signet = new Signet({ apiKey: 'sgn_live_package', baseUrl: 'https://sign.example.com' })",
        "const document: Document = await signet.documents.get('doc_x')",
        'const emails: string[] = document.signers.map((signer) => signer.email)',
        "const path: keyof paths = '/documents/{id}'",
        'console.log(emails, path, SignetError.name)',
        // Fails to compile if the declarations were missing and everything were `any`.
        '// @ts-expect-error an id is a string',
        'await signet.documents.get(42)',
      ].join('\n'),
    )
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc')
    const checked = await run(process.execPath, [tsc, '-p', project], { cwd: project, env: plainEnv, timeout: RUN_MS }).then(
      () => '',
      (error: Error & { stdout?: string }) => error.stdout || error.message,
    )
    expect(checked).toBe('')
  },
  RUN_MS,
)

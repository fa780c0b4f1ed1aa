// Installs dependencies when node_modules is missing or older than the lockfile, and builds the
// dashboard, the server, the operator CLI, the `signet` CLI and the SDK's dist/ when their builds are
// missing or older than their sources, so that `npm start`, `npm run admin` and `npm test` work on a
// fresh clone. Output goes to stderr so that `npm run -s admin` keeps stdout as pure JSON.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const marker = 'node_modules/.package-lock.json'
const lockfile = 'package-lock.json'
const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync(lockfile).mtimeMs
if (stale) {
  process.stderr.write('Installing dependencies (npm ci)…\n')
  run('npm', ['ci', '--no-audit', '--no-fund'])
}

const web = 'packages/web'
const built = join(web, 'dist/index.html')
// design/ holds the tokens the dashboard's stylesheet imports (shared with the server's pages).
const sources = [join(web, 'src'), join(web, 'index.html'), join(web, 'vite.config.ts'), join(web, 'openapi.json'), join(web, 'package.json'), 'design']
if (!existsSync(built) || statSync(built).mtimeMs < Math.max(...sources.map(newestChange))) {
  process.stderr.write('Building the dashboard (packages/web)…\n')
  run('npm', ['run', '-s', 'build', '-w', '@signet/web'])
}

// The server as `npm start` runs it (one JavaScript file) and the operator CLI as `npm run admin` runs
// it (an entry and its lazily imported chunks), each rebuilt when a source is newer:
// packages/server/scripts/build-server.mjs.
run('node', ['packages/server/scripts/build-server.mjs'])
// The `signet` CLI as `npx signet` runs it: one bundle with lazy chunks (packages/cli/bin/build-cli.mjs).
run('node', ['packages/cli/bin/build-cli.mjs'])
// The SDK as its npm package ships it (dist/: JavaScript and .d.ts): what Node loads when it runs
// without the workspace's `source` export condition (packages/sdk/scripts/build.mjs).
run('node', ['packages/sdk/scripts/build.mjs'])

function run(command, args) {
  const result = spawnSync(command, args, { stdio: ['ignore', 2, 2] })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

/** The latest modification time of a file, or of any file under a folder (0 when absent). */
function newestChange(path) {
  if (!existsSync(path)) return 0
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))))
}

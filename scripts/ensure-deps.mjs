// Installs dependencies when node_modules is missing or older than the lockfile,
// so that `npm start` and `npm test` work on a fresh clone. Output goes to stderr
// so that `npm run -s admin` keeps stdout as pure JSON.
import { spawnSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'

const marker = 'node_modules/.package-lock.json'
const lockfile = 'package-lock.json'
const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync(lockfile).mtimeMs
if (stale) {
  process.stderr.write('Installing dependencies (npm ci)…\n')
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: ['ignore', 2, 2] })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

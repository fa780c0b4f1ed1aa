// Compiles src/ into dist/ (ES modules and .d.ts) for the published package: plain Node and other
// projects' tools load dist/, while the workspace resolves the `source` export condition to src/ and
// never needs it. `npm pack` builds first (prepack); scripts/ensure-deps.mjs builds when dist/ is
// missing or older than a source, so it runs this on every `npm start` and `npm test`.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const DIST = join(root, 'dist')
/** Its age is the build's: each build replaces the whole folder. */
const BUILT = join(DIST, 'index.js')
const SOURCES = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json', '../../tsconfig.base.json'].map((path) => join(root, path))

/** The latest modification time of a file, or of any file under a folder (0 when absent). */
function newestChange(path) {
  if (!existsSync(path)) return 0
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))))
}

export function sdkDistIsStale() {
  return !existsSync(BUILT) || statSync(BUILT).mtimeMs < Math.max(...SOURCES.map(newestChange))
}

/** Builds dist/ when it is missing or older than a source (or always, with `force`). */
export function buildSdk({ force = false } = {}) {
  if (!force && !sdkDistIsStale()) return false
  // Compiled into an empty folder and renamed into place: a module deleted from src/ leaves nothing
  // behind in the package, and a process importing dist/ meanwhile never sees half a build.
  const aside = join(root, `dist.${process.pid}.tmp`)
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', aside], { stdio: ['ignore', 2, 2] })
  if (result.status !== 0) {
    rmSync(aside, { recursive: true, force: true })
    throw new Error(`tsc -p packages/sdk/tsconfig.build.json failed (exit ${result.status ?? result.signal})`)
  }
  const old = `${DIST}.${process.pid}.old`
  mkdirSync(DIST, { recursive: true })
  try {
    renameSync(DIST, old)
    renameSync(aside, DIST)
  } catch {
    // Another build swapped its own in meanwhile: same sources, same output.
    rmSync(aside, { recursive: true, force: true })
  }
  rmSync(old, { recursive: true, force: true })
  return true
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes('--force')
  if (force || sdkDistIsStale()) process.stderr.write('Building the SDK (packages/sdk/dist)…\n')
  buildSdk({ force })
}

// Bundles the CLI (src/ with @signet/sdk and @signet/verify inlined, and its npm dependencies) into
// dist/ with esbuild. Code splitting keeps the entry small: each command's module (and the verifier,
// cli-progress, papaparse…) is a chunk loaded only when that command runs, so `signet --version`
// parses a few kilobytes, not the whole verifier. bin/signet.mjs builds on first use and whenever
// a source is newer than the bundle; scripts/ensure-deps.mjs builds it with the server.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const packagesDir = join(root, '..')
export const BUNDLE = join(root, 'dist/signet.mjs')
/** Everything the bundle is made of: this package's sources and the workspace packages it inlines. */
const SOURCES = ['cli/src', 'cli/package.json', 'sdk/src', 'sdk/package.json', 'verify/src', 'verify/package.json'].map((path) => join(packagesDir, path))

/** The latest modification time of a file, or of any file under a folder (0 when absent). */
function newestChange(path) {
  if (!existsSync(path)) return 0
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))))
}

export function cliBundleIsStale() {
  return !existsSync(BUNDLE) || statSync(BUNDLE).mtimeMs < Math.max(...SOURCES.map(newestChange))
}

/** Builds dist/ when it is missing or older than a source (or always, with `force`). */
export async function buildCli({ force = false } = {}) {
  if (!force && !cliBundleIsStale()) return false
  const { build } = await import('esbuild')
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  // Built aside and renamed into place: a CLI starting meanwhile never imports half a bundle.
  const aside = join(root, `dist.${process.pid}.tmp`)
  await build({
    entryPoints: { signet: join(root, 'src/main.ts') },
    outdir: aside,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    // @signet/sdk's `source` export is its TypeScript (no dist/ needed); a list of conditions
    // replaces esbuild's `module`, so it is named again.
    conditions: ['source', 'module'],
    format: 'esm',
    target: 'node20.19',
    minify: true,
    legalComments: 'none',
    define: { SIGNET_CLI_VERSION: JSON.stringify(version) },
    // Some dependencies are CommonJS that require() Node built-ins.
    banner: { js: "import { createRequire as __signetRequire } from 'node:module'; const require = __signetRequire(import.meta.url);" },
    logLevel: 'warning',
  })
  const dist = dirname(BUNDLE)
  const old = `${dist}.${process.pid}.old`
  mkdirSync(dist, { recursive: true })
  try {
    renameSync(dist, old)
    renameSync(aside, dist)
  } catch {
    // Another build swapped its own in meanwhile: same sources, same bundle.
    rmSync(aside, { recursive: true, force: true })
  }
  rmSync(old, { recursive: true, force: true })
  return true
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes('--force')
  if (force || cliBundleIsStale()) process.stderr.write('Building the CLI (packages/cli/dist/signet.mjs)…\n')
  await buildCli({ force })
}

// Builds the server into one JavaScript file, packages/server/dist/server.js, which `npm start`
// runs with plain Node: no TypeScript loader at run time (tsx names every function it compiles
// with a helper call, and its loader hooks and source maps slow every start), measured in
// docs/benchmarks.md. ensure-deps.mjs runs this before `npm start`, `npm test` and `npm run bench`;
// it rebuilds only when a source is newer than the build (~150 ms when it does).
//
// The bundle holds our workspace packages (server, vocabulary, verify); npm packages stay
// imports resolved from node_modules as before. Each module's `import.meta.url` is replaced by
// its source file's URL, so the files a module finds beside itself (migrations, fonts, the
// signer page's scripts, the PDF worker) are found where they are in the repository.
//
// The operator CLI (`npm run admin`) is bundled the same way into packages/server/dist/admin/: its
// entry, cli.js, plus the chunks it imports only when it opens the database itself (esbuild's code
// splitting). One file would import every npm package the database and PDF code use at start-up
// (esbuild hoists a bundle's imports), 2 s a command where tsx took 1 s and these chunks take 0.4 s
// (docs/benchmarks.md, CI time).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const packagesDir = fileURLToPath(new URL('../../', import.meta.url))
export const SERVER_BUNDLE = join(packagesDir, 'server/dist/server.js')
const ENTRY = join(packagesDir, 'server/src/server.ts')
export const ADMIN_BUNDLE = join(packagesDir, 'server/dist/admin/cli.js')
const ADMIN_ENTRY = join(packagesDir, 'server/src/admin/cli.ts')
/** Everything the bundle is made of: the workspace packages' sources and manifests. */
const SOURCES = ['server/src', 'server/package.json', 'vocabulary/src', 'vocabulary/package.json', 'verify/src', 'verify/package.json'].map((path) =>
  join(packagesDir, path),
)

/** The latest modification time of a file, or of any file under a folder (0 when absent). */
function newestChange(path) {
  if (!existsSync(path)) return 0
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))))
}

const isStale = (bundle) => !existsSync(bundle) || statSync(bundle).mtimeMs < Math.max(...SOURCES.map(newestChange))

export function serverBundleIsStale() {
  return isStale(SERVER_BUNDLE)
}

export function adminBundleIsStale() {
  return isStale(ADMIN_BUNDLE)
}

/** npm packages stay imports; our own (`@signet/…`, relative paths) go into the bundle. */
const npmPackagesExternal = {
  name: 'npm-packages-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@signet/') ? undefined : { path: args.path, external: true }))
  },
}

/** Each workspace module keeps its own location as import.meta.url (see the header). */
const sourceLocations = {
  name: 'source-locations',
  setup(build) {
    build.onLoad({ filter: /\/packages\/[a-z-]+\/src\/.*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8')
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' }
    })
  },
}

const bundleOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  sourcemap: true,
  // Error stacks name the source files (node --enable-source-maps, as npm start and npm run admin run them).
  sourcesContent: false,
  plugins: [npmPackagesExternal, sourceLocations],
  logLevel: 'warning',
  write: false,
}

/**
 * Each file is written aside and renamed, the entry last: a process starting meanwhile (parallel
 * test files) never reads half a file, nor an entry whose chunks are not there yet.
 */
function writeOutputs(outputFiles, entry) {
  mkdirSync(dirname(entry), { recursive: true })
  const ordered = [...outputFiles.filter((file) => file.path !== entry), ...outputFiles.filter((file) => file.path === entry)]
  for (const file of ordered) {
    const aside = `${file.path}.${process.pid}.tmp`
    writeFileSync(aside, file.contents)
    renameSync(aside, file.path)
  }
}

/** Builds the bundle when it is missing or older than a source (or always, with `force`). */
export async function buildServer({ force = false } = {}) {
  if (!force && !serverBundleIsStale()) return false
  const { build } = await import('esbuild')
  const { outputFiles } = await build({ ...bundleOptions, entryPoints: [ENTRY], outfile: SERVER_BUNDLE })
  writeOutputs(outputFiles, SERVER_BUNDLE)
  return true
}

/** Builds the operator CLI's entry and chunks when missing or older than a source (or always, with `force`). */
export async function buildAdmin({ force = false } = {}) {
  if (!force && !adminBundleIsStale()) return false
  const { build } = await import('esbuild')
  const outdir = dirname(ADMIN_BUNDLE)
  const { outputFiles } = await build({ ...bundleOptions, entryPoints: [ADMIN_ENTRY], outdir, splitting: true })
  const lastBuild = statSync(ADMIN_BUNDLE, { throwIfNoEntry: false })?.mtimeMs ?? 0
  writeOutputs(outputFiles, ADMIN_BUNDLE)
  // A chunk's name carries a hash of its content, so earlier builds' chunks stay beside this one's.
  // A command started just before this build may still import the last build's (written within
  // moments of its entry): only older ones go. (Files being written aside end in .tmp and stay.)
  const current = new Set(outputFiles.map((file) => file.path))
  for (const name of readdirSync(outdir)) {
    const path = join(outdir, name)
    if (!/\.js(\.map)?$/.test(name) || current.has(path)) continue
    const written = statSync(path, { throwIfNoEntry: false })?.mtimeMs
    if (written !== undefined && written < lastBuild - 5_000) rmSync(path, { force: true })
  }
  return true
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const force = process.argv.includes('--force')
  if (force || serverBundleIsStale()) process.stderr.write('Building the server (packages/server/dist/server.js)…\n')
  await buildServer({ force })
  if (force || adminBundleIsStale()) process.stderr.write('Building the operator CLI (packages/server/dist/admin/)…\n')
  await buildAdmin({ force })
}

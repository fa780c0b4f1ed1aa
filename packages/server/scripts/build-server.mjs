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
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const packagesDir = fileURLToPath(new URL('../../', import.meta.url))
export const SERVER_BUNDLE = join(packagesDir, 'server/dist/server.js')
const ENTRY = join(packagesDir, 'server/src/server.ts')
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

export function serverBundleIsStale() {
  return !existsSync(SERVER_BUNDLE) || statSync(SERVER_BUNDLE).mtimeMs < Math.max(...SOURCES.map(newestChange))
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

/** Builds the bundle when it is missing or older than a source (or always, with `force`). */
export async function buildServer({ force = false } = {}) {
  if (!force && !serverBundleIsStale()) return false
  const { build } = await import('esbuild')
  const { outputFiles } = await build({
    entryPoints: [ENTRY],
    outfile: SERVER_BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: true,
    // Error stacks name the source files (node --enable-source-maps, as npm start runs it).
    sourcesContent: false,
    plugins: [npmPackagesExternal, sourceLocations],
    logLevel: 'warning',
    write: false,
  })
  // Written aside and renamed: a server starting meanwhile (parallel test files) never reads half a file.
  mkdirSync(dirname(SERVER_BUNDLE), { recursive: true })
  for (const file of outputFiles) {
    const aside = `${file.path}.${process.pid}.tmp`
    writeFileSync(aside, file.contents)
    renameSync(aside, file.path)
  }
  return true
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const force = process.argv.includes('--force')
  if (force || serverBundleIsStale()) process.stderr.write('Building the server (packages/server/dist/server.js)…\n')
  await buildServer({ force })
}

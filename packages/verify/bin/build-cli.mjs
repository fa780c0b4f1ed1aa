// Bundles the CLI (src/cli.ts and everything it imports) into dist/cli.mjs with esbuild.
// bin/signet-verify.mjs runs it on first use and whenever src/ changed; `npm pack` runs it first.
import { mkdirSync, renameSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
export const BUNDLE = `${root}dist/cli.mjs`

export async function buildCli() {
  mkdirSync(`${root}dist`, { recursive: true })
  // Written aside and renamed: two first runs at once must never import a half-written bundle.
  const partial = `${BUNDLE}.${process.pid}.tmp`
  await build({
    entryPoints: [`${root}src/cli.ts`],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    outfile: partial,
    // Some dependencies are CommonJS that require() Node built-ins.
    banner: { js: "import { createRequire as __signetRequire } from 'node:module'; const require = __signetRequire(import.meta.url);" },
    logLevel: 'warning',
  })
  renameSync(partial, BUNDLE)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildCli()

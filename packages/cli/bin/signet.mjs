#!/usr/bin/env node
// Runs the bundled CLI (dist/signet.mjs, built by build-cli.mjs): Node starts it in tens of
// milliseconds, where compiling src/ at start took half a second. In a checkout the bundle is
// rebuilt first when a source is newer; an installed package ships dist/ without src/.
import { existsSync } from 'node:fs'

const bundle = new URL('../dist/signet.mjs', import.meta.url)
if (existsSync(new URL('../src', import.meta.url))) {
  const { buildCli } = await import('./build-cli.mjs')
  await buildCli()
}
const { main } = await import(bundle.href)
process.exitCode = await main(process.argv.slice(2))

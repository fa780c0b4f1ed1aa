#!/usr/bin/env node
// The CLI runs from a bundle (dist/cli.mjs): Node starts it in tens of milliseconds, where
// compiling src/ on the fly took about half a second. The bundle is rebuilt when src/ is newer.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const bundle = `${root}dist/cli.mjs`

function newestChange(dir) {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs)
  }
  return newest
}

if (!existsSync(bundle) || (existsSync(`${root}src`) && statSync(bundle).mtimeMs < newestChange(`${root}src`))) {
  const { buildCli } = await import('./build-cli.mjs')
  await buildCli()
}
const { main } = await import(pathToFileURL(bundle).href)
process.exitCode = await main(process.argv.slice(2))

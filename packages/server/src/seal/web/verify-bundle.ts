import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { memoryAsset, type MemoryAsset } from '../../http/send-asset.ts'

/*
 * The page script is bundled with @signet/verify on first use (esbuild, in memory,
 * about a second), so the browser runs exactly the library the CLI and the tests run,
 * and there is no build step to forget.
 */
let script: Promise<MemoryAsset> | undefined
let style: Promise<MemoryAsset> | undefined

export function verifyScript(): Promise<MemoryAsset> {
  script ??= build({
    entryPoints: [fileURLToPath(new URL('./verify-client.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    write: false,
    legalComments: 'none',
  }).then((result) => memoryAsset(Buffer.from(result.outputFiles[0]!.contents), 'text/javascript; charset=utf-8'))
  return script
}

export function verifyStyle(): Promise<MemoryAsset> {
  style ??= readFile(fileURLToPath(new URL('./assets/verify.css', import.meta.url))).then((bytes) => memoryAsset(bytes, 'text/css; charset=utf-8'))
  return style
}

import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { bundleBrowserScript } from '../../lib/browser-bundle.ts'
import { withDesignTokens } from '../../lib/design-tokens.ts'
import { memoryAsset, type MemoryAsset } from '../../lib/memory-asset.ts'

/*
 * The page script is bundled with @signet/verify on first use (esbuild, in memory,
 * see lib/browser-bundle.ts), so the browser runs exactly the library the CLI and the tests run,
 * and there is no build step to forget.
 */
let script: Promise<MemoryAsset> | undefined
let style: Promise<MemoryAsset> | undefined

export function verifyScript(): Promise<MemoryAsset> {
  script ??= bundleBrowserScript(new URL('./client/verify.ts', import.meta.url))
  return script
}

export function verifyStyle(): Promise<MemoryAsset> {
  style ??= readFile(fileURLToPath(new URL('./assets/verify.css', import.meta.url))).then((bytes) =>
    memoryAsset(withDesignTokens(bytes), 'text/css; charset=utf-8'),
  )
  return style
}

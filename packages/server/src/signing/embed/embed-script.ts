import { bundleBrowserScript } from '../../lib/browser-bundle.ts'
import type { MemoryAsset } from '../../lib/memory-asset.ts'

/** The <signet-signing> element (packages/embed), bundled from its source once per process: what integrators load from /embed/signet-signing.js. */
const ENTRY = new URL('../../../../embed/src/index.ts', import.meta.url)
let script: Promise<MemoryAsset> | undefined

export function embedScript(): Promise<MemoryAsset> {
  script ??= bundleBrowserScript(ENTRY)
  return script
}

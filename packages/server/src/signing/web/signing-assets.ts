import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { bundleBrowserScript } from '../../lib/browser-bundle.ts'
import { withDesignTokens } from '../../lib/design-tokens.ts'
import { memoryAsset, type MemoryAsset } from '../../lib/memory-asset.ts'

/**
 * The static files of the signer's pages, held in memory (http/routes/signing-assets.ts serves them
 * under /sign-assets/). An explicit whitelist (no directory serving), linked with their version (signingAssetUrl).
 */
const require = createRequire(import.meta.url)
const own = (name: string) => fileURLToPath(new URL(`./assets/${name}`, import.meta.url))
const JS = 'text/javascript; charset=utf-8'

// pdf.js's *legacy* build: the modern build/ one needs features only the newest browsers have
// (e.g. Map.prototype.getOrInsertComputed, Uint8Array.fromBase64), and signers use any phone.
const FILES = {
  'sign.css': { path: own('sign.css'), type: 'text/css; charset=utf-8' },
  'pdf.min.mjs': { path: require.resolve('pdfjs-dist/legacy/build/pdf.min.mjs'), type: JS },
  'pdf.worker.min.mjs': { path: require.resolve('pdfjs-dist/legacy/build/pdf.worker.min.mjs'), type: JS },
  'dancing-script.woff2': {
    path: require.resolve('@fontsource/dancing-script/files/dancing-script-latin-400-normal.woff2'),
    type: 'font/woff2',
  },
} as const

/** The pages' script, bundled from client/ (TypeScript) rather than read from a file. */
const SCRIPT = 'sign.js'
const SCRIPT_ENTRY = new URL('./client/main.ts', import.meta.url)

export type SigningAssetName = keyof typeof FILES | typeof SCRIPT
export const SIGNING_ASSET_NAMES = [SCRIPT, ...Object.keys(FILES)] as SigningAssetName[]

const loaded = new Map<SigningAssetName, MemoryAsset>()
let scriptBuild: Promise<MemoryAsset> | undefined

/** Bundles the script (once per process), so pages can link it by version synchronously and the first signer does not wait for esbuild. */
export async function bundleSigningScript(): Promise<void> {
  scriptBuild ??= bundleBrowserScript(SCRIPT_ENTRY)
  loaded.set(SCRIPT, await scriptBuild)
}

/** Reads (once) and caches an asset; the script must have been bundled (bundleSigningScript). */
export function signingAsset(name: SigningAssetName): MemoryAsset {
  let asset = loaded.get(name)
  if (!asset) {
    if (name === SCRIPT) throw new Error('The signing script is not bundled yet: register signingAssetRoutes before serving pages.')
    const { path, type } = FILES[name]
    const bytes = readFileSync(path)
    asset = name === 'sign.css' ? memoryAsset(withDesignTokens(bytes), type) : memoryAsset(bytes, type, { compressed: type === 'font/woff2' })
    loaded.set(name, asset)
  }
  return asset
}

/** The URL pages use for an asset, versioned by content so it can be cached long-term. */
export function signingAssetUrl(name: SigningAssetName): string {
  return `/sign-assets/${name}?v=${signingAsset(name).version}`
}

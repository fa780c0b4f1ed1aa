import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { FastifyPluginAsync } from 'fastify'
import { bundleBrowserScript } from '../browser-bundle.ts'
import { memoryAsset, sendAsset, type MemoryAsset } from '../send-asset.ts'

/**
 * The static files of the signer's pages, served from memory under /sign-assets/.
 * An explicit whitelist (no directory serving), linked with their version (signingAssetUrl).
 */
const require = createRequire(import.meta.url)
const own = (name: string) => fileURLToPath(new URL(`../../signing/web/assets/${name}`, import.meta.url))
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

/** The pages' script, bundled from signing/web/client/ (TypeScript) rather than read from a file. */
const SCRIPT = 'sign.js'
const SCRIPT_ENTRY = new URL('../../signing/web/client/main.ts', import.meta.url)

export type SigningAssetName = keyof typeof FILES | typeof SCRIPT

const loaded = new Map<SigningAssetName, MemoryAsset>()
let scriptBuild: Promise<MemoryAsset> | undefined

/** Reads (once) and caches an asset; the script must have been bundled (signingAssetRoutes does it). */
function load(name: SigningAssetName): MemoryAsset {
  let asset = loaded.get(name)
  if (!asset) {
    if (name === SCRIPT) throw new Error('The signing script is not bundled yet: register signingAssetRoutes before serving pages.')
    const { path, type } = FILES[name]
    asset = memoryAsset(readFileSync(path), type, { compressed: type === 'font/woff2' })
    loaded.set(name, asset)
  }
  return asset
}

/** The URL pages use for an asset, versioned by content so it can be cached long-term. */
export function signingAssetUrl(name: SigningAssetName): string {
  return `/sign-assets/${name}?v=${load(name).version}`
}

/**
 * Serves the whitelisted assets at /sign-assets/<name>. Register without a prefix.
 * Bundles the script while registering (once per process), so pages can link it by version
 * synchronously and the first signer does not wait for esbuild.
 */
export const signingAssetRoutes: FastifyPluginAsync = async (app) => {
  scriptBuild ??= bundleBrowserScript(SCRIPT_ENTRY)
  loaded.set(SCRIPT, await scriptBuild)
  for (const name of [SCRIPT, ...Object.keys(FILES)] as SigningAssetName[]) {
    app.get(`/sign-assets/${name}`, { schema: { hide: true } }, (request, reply) => sendAsset(request, reply, load(name)))
  }
}

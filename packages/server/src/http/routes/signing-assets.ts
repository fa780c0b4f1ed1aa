import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import type { FastifyPluginAsync } from 'fastify'

/**
 * The static files of the signer's pages, served from memory under /sign-assets/.
 *
 * An explicit whitelist (no directory serving). Pages link them as `/sign-assets/<name>?v=<hash>`
 * (see signingAssetUrl), so a versioned request may be cached for a year; an unversioned one
 * must be revalidated (ETag), which keeps stale scripts out of browsers after a deploy.
 */
const require = createRequire(import.meta.url)
const own = (name: string) => fileURLToPath(new URL(`../../signing/web/assets/${name}`, import.meta.url))
const JS = 'text/javascript; charset=utf-8'

// pdf.js's *legacy* build: the modern build/ one needs features only the newest browsers have
// (e.g. Map.prototype.getOrInsertComputed, Uint8Array.fromBase64), and signers use any phone.
const FILES = {
  'sign.js': { path: own('sign.js'), type: JS },
  'sign.css': { path: own('sign.css'), type: 'text/css; charset=utf-8' },
  'pdf.min.mjs': { path: require.resolve('pdfjs-dist/legacy/build/pdf.min.mjs'), type: JS },
  'pdf.worker.min.mjs': { path: require.resolve('pdfjs-dist/legacy/build/pdf.worker.min.mjs'), type: JS },
  'dancing-script.woff2': {
    path: require.resolve('@fontsource/dancing-script/files/dancing-script-latin-400-normal.woff2'),
    type: 'font/woff2',
  },
} as const

export type SigningAssetName = keyof typeof FILES

interface LoadedAsset {
  bytes: Buffer
  gzip: Buffer | null
  version: string
  /** Weak: the gzipped and plain bodies share it. */
  etag: string
}

const loaded = new Map<SigningAssetName, LoadedAsset>()

/** Reads (once) and caches an asset; text assets are also gzipped once. */
function load(name: SigningAssetName): LoadedAsset {
  let asset = loaded.get(name)
  if (!asset) {
    const { path, type } = FILES[name]
    const bytes = readFileSync(path)
    const version = createHash('sha256').update(bytes).digest('hex').slice(0, 12)
    asset = { bytes, gzip: type === 'font/woff2' ? null : gzipSync(bytes, { level: 9 }), version, etag: `W/"${version}"` }
    loaded.set(name, asset)
  }
  return asset
}

/** The URL pages use for an asset, versioned by content so it can be cached long-term. */
export function signingAssetUrl(name: SigningAssetName): string {
  return `/sign-assets/${name}?v=${load(name).version}`
}

/** Serves the whitelisted assets at /sign-assets/<name>. Register without a prefix. */
export const signingAssetRoutes: FastifyPluginAsync = async (app) => {
  for (const name of Object.keys(FILES) as SigningAssetName[]) {
    app.get(`/sign-assets/${name}`, { schema: { hide: true } }, (request, reply) => {
      const asset = load(name)
      const versioned = (request.query as Record<string, unknown>).v === asset.version
      void reply
        .header('content-type', FILES[name].type)
        .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache')
        .header('etag', asset.etag)
        .header('vary', 'accept-encoding')
        .header('x-content-type-options', 'nosniff')
        .header('cross-origin-resource-policy', 'same-origin')
      if (request.headers['if-none-match']?.includes(asset.etag)) return reply.status(304).send()
      if (asset.gzip && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
        return reply.header('content-encoding', 'gzip').send(asset.gzip)
      }
      return reply.send(asset.bytes)
    })
  }
}

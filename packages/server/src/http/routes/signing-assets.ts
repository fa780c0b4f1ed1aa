import type { FastifyPluginAsync } from 'fastify'
import { bundleSigningScript, signingAsset, SIGNING_ASSET_NAMES } from '../../signing/web/signing-assets.ts'
import { sendAsset } from '../send-asset.ts'

/**
 * Serves the signer's pages' assets at /sign-assets/<name>. Register without a prefix.
 * Bundles the script while registering, so pages can link it by version synchronously.
 */
export const signingAssetRoutes: FastifyPluginAsync = async (app) => {
  await bundleSigningScript()
  for (const name of SIGNING_ASSET_NAMES) {
    app.get(`/sign-assets/${name}`, { schema: { hide: true } }, (request, reply) => sendAsset(request, reply, signingAsset(name)))
  }
}

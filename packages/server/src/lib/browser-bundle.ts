import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { memoryAsset, type MemoryAsset } from './memory-asset.ts'

/**
 * Bundles a page script written in TypeScript (an entry module and what it imports) into one
 * minified ES module, in memory, once per process. The one way the server's own pages get
 * their browser code (the signing pages and the verification page); the dashboard is built by
 * Vite instead. No build step to forget: the script is always the source's.
 *
 * target es2020: signers use any phone, and the scripts need nothing newer.
 */
export async function bundleBrowserScript(entry: URL): Promise<MemoryAsset> {
  const result = await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    write: false,
    legalComments: 'none',
  })
  const [output] = result.outputFiles
  if (!output) throw new Error(`esbuild produced no output for ${fileURLToPath(entry)}`)
  return memoryAsset(Buffer.from(output.contents), 'text/javascript; charset=utf-8')
}

// Bundles <signet-signing> into dist/signet-signing.js: one ES module an integrator loads with a script tag.
import { build } from 'esbuild'

await build({
  entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
  outfile: new URL('../dist/signet-signing.js', import.meta.url).pathname,
  bundle: true,
  format: 'esm',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
})

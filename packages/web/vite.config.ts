import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defaultClientConditions, defineConfig, type Plugin } from 'vite'

// Served by Fastify under /app/ (packages/server/src/http/routes/dashboard.ts); `vite dev` proxies the API.
export default defineConfig({
  base: '/app/',
  plugins: [react(), tailwindcss(), precompress()],
  // @signet/sdk's `source` export is its TypeScript, so the dashboard builds without the SDK's dist/.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
})

/** Writes .br and .gz beside every text file of the build, which @fastify/static serves by Accept-Encoding. */
function precompress(): Plugin {
  let outDir = ''
  return {
    name: 'signet-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir.startsWith('/') ? config.build.outDir : join(config.root, config.build.outDir)
    },
    closeBundle() {
      for (const file of walk(outDir)) {
        if (!/\.(js|mjs|css|html|svg|json|txt)$/.test(file) || statSync(file).size < 1024) continue
        const bytes = readFileSync(file)
        writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }))
        writeFileSync(`${file}.br`, brotliCompressSync(bytes))
      }
    },
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]))
}

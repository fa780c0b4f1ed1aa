/**
 * Uploads one PDF to POST /api/v1/seals again and again, `concurrency` at a time, until the
 * parent says stop: the heavy tenant of the isolation suite (bench/isolation.ts), in its own
 * process so its 25 MB bodies never share a thread with the server under test.
 *
 *   parent → child  { type: 'start', url, apiKey, file, concurrency }   |   { type: 'stop' }
 *   child → parent  { type: 'uploading' }   (the first uploads are under way)
 *   child → parent  { type: 'done', statuses, uploads, seconds }
 */
import { readFileSync } from 'node:fs'

export interface UploaderStart {
  type: 'start'
  url: string
  apiKey: string
  file: string
  concurrency: number
}
export type UploaderMessage = { type: 'uploading' } | { type: 'done'; statuses: Record<string, number>; uploads: number; seconds: number }

let stopping = false
process.on('message', (message: UploaderStart | { type: 'stop' }) => {
  if (message.type === 'stop') stopping = true
  else void run(message)
})

async function run(start: UploaderStart): Promise<void> {
  const pdf = readFileSync(start.file)
  const statuses: Record<string, number> = {}
  let uploads = 0
  const began = performance.now()
  const loop = async () => {
    while (!stopping) {
      const response = await fetch(`${start.url}/api/v1/seals?title=Bench`, {
        method: 'POST',
        headers: { authorization: `Bearer ${start.apiKey}`, 'content-type': 'application/pdf' },
        body: pdf,
      })
      await response.arrayBuffer()
      statuses[response.status] = (statuses[response.status] ?? 0) + 1
      uploads++
    }
  }
  const loops = Array.from({ length: start.concurrency }, loop)
  process.send?.({ type: 'uploading' } satisfies UploaderMessage)
  await Promise.all(loops)
  process.send?.({ type: 'done', statuses, uploads, seconds: (performance.now() - began) / 1000 } satisfies UploaderMessage, () => process.exit(0))
}

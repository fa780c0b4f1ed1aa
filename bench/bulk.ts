/**
 * Bulk-send throughput: one POST /api/v1/documents/bulk-send with 10,000 recipients to a
 * Signet server in this process (PGlite on disk or a scratch PostgreSQL database), over
 * loopback HTTP, invitations queued in the outbox and "delivered" by a no-op mailer.
 * Reports documents per second end to end and the process's memory (RSS, sampled).
 *
 *   node --import tsx bench/bulk.ts      (also run by `npm run bench`)
 */
import { pathToFileURL } from 'node:url'
import { startSignet, type Backend } from './targets.ts'

export interface BulkBenchResult {
  backend: string
  recipients: number
  sent: number
  seconds: number
  documents_per_second: number
  rss_before_mib: number
  rss_peak_mib: number
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20)

export async function measureBulkSend(backend: Backend, recipients = 10_000): Promise<BulkBenchResult> {
  const signet = await startSignet(backend, 'warn')
  try {
    const body = JSON.stringify({
      template_id: signet.templateId,
      recipients: Array.from({ length: recipients }, (_, i) => ({ email: `bulk.${i}@example.com`, name: `Recipient ${i}` })),
    })
    const rssBefore = process.memoryUsage().rss
    let rssPeak = rssBefore
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 25)
    const started = performance.now()
    const response = await fetch(`${signet.url}/api/v1/documents/bulk-send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${signet.apiKey}`, 'content-type': 'application/json' },
      body,
    })
    const result = (await response.json()) as { sent?: number; error?: string }
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    if (response.status !== 201 || result.sent === undefined) throw new Error(`bulk-send answered ${response.status}: ${JSON.stringify(result).slice(0, 300)}`)
    return {
      backend: signet.kind === 'postgres' ? 'PostgreSQL' : 'PGlite',
      recipients,
      sent: result.sent,
      seconds: Math.round(seconds * 100) / 100,
      documents_per_second: Math.round(result.sent / seconds),
      rss_before_mib: mib(rssBefore),
      rss_peak_mib: mib(rssPeak),
    }
  } finally {
    await signet.close()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const databaseUrl = process.env.DATABASE_URL
  const result = await measureBulkSend(databaseUrl ? { kind: 'postgres', databaseUrl } : { kind: 'pglite' })
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
}

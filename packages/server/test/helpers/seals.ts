import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { executeAdminCommand } from '../../src/admin/commands.ts'
import type { TestServer } from './test-server.ts'

/** Records the operator's identity check for an org, as `admin org verify-identity` does. */
export async function verifyIdentity(server: TestServer, orgId: string, legalName = 'Acme Widgets Ltd'): Promise<void> {
  await executeAdminCommand(server.services, { name: 'org.verify-identity', orgId, legalName })
}

/** POST /api/v1/seals with the PDF as the raw body. */
export function postSeal(server: TestServer, apiKey: string, pdf: Uint8Array, query: Record<string, string> = {}): Promise<Response> {
  const search = new URLSearchParams(query).toString()
  return server.request(`/api/v1/seals${search ? `?${search}` : ''}`, {
    method: 'POST',
    key: apiKey,
    headers: { 'content-type': 'application/pdf' },
    body: new Uint8Array(pdf),
  })
}

export async function download(server: TestServer, apiKey: string, path: string): Promise<Uint8Array> {
  const response = await server.request(path, { key: apiKey })
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`)
  return new Uint8Array(await response.arrayBuffer())
}

/** Runs an external tool on the PDF (written to a temp file) and returns its output, whatever its exit code. */
export function runOnPdf(pdf: Uint8Array, tool: string, args: (file: string) => string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'signet-seal-'))
  try {
    const file = join(dir, 'file.pdf')
    writeFileSync(file, pdf)
    try {
      return execFileSync(tool, args(file), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string }
      return `${failed.stdout ?? ''}${failed.stderr ?? ''}`
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** pdfsig's report (it exits 0 even on a digest mismatch, so tests read its text). */
export const pdfsigReport = (pdf: Uint8Array): string => runOnPdf(pdf, 'pdfsig', (file) => ['-no-ocsp', file])

/**
 * A URL nothing listens on: a port the OS just handed out and took back. (Ports like 1 or 9
 * are no good: fetch refuses them as "bad port" without connecting.)
 */
export async function closedPortUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}/tsr`
}

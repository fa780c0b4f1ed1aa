import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { verifyPdf } from '@signet/verify'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadConfig } from '../src/config.ts'
import { openDatabase } from '../src/db/client.ts'
import { createLogger } from '../src/lib/logger.ts'
import { loadSealer } from '../src/seal/instance-seal.ts'
import { httpTimestampAuthority, type NamedTimestampAuthority } from '../src/seal/tsa-chain.ts'
import { systemClock } from '../src/adapters/clock.ts'
import { bodyOf, expectError, setupOrg, type Json } from './helpers/api.ts'
import { movableClock } from './helpers/clock.ts'
import { makePdf } from './helpers/pdf.ts'
import { closedPortUrl, download, pdfsigReport, postSeal, verifyIdentity } from './helpers/seals.ts'
import { sendForSigning, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'
import { OPENSSL_CA_CONFIG } from '../../../test-support/openssl-ca.ts'
import { startOpensslTsa, type OpensslTsa } from '../../../test-support/openssl-tsa.ts'
import { haveTools } from '../../../test-support/tools.ts'
import { PdfWork } from '../src/pdf-work/pdf-work.ts'

/*
 * Where the time comes from: third-party authorities tried in order, a seal that waits
 * (never goes untimed) while every authority is down, and the signing flow's signed
 * PDFs sealed the same way.
 */

describe.runIf(haveTools('openssl', 'pdfsig'))('time-stamp authorities', () => {
  let tsa: OpensslTsa
  beforeAll(async () => {
    tsa = await startOpensslTsa()
  })
  afterAll(async () => {
    await tsa?.close()
  })

  test('TSA_URL is tried in order: a dead authority is skipped and the third party proves the time', async () => {
    const server = await startTestServer({ env: { TSA_URL: `${await closedPortUrl()},${tsa.url},local`, TSA_TIMEOUT_MS: '2000' } })
    try {
      const org = await setupOrg(server)
      await verifyIdentity(server, org.orgId)
      const response = await postSeal(server, org.apiKey, await makePdf(1), { title: 'Third-party time' })
      expect(response.status).toBe(201)
      const sealed = await bodyOf(response)
      expect(sealed.timestamp_authority).toBe('Test Third-Party TSA')
      const file = await download(server, org.apiKey, `/api/v1/documents/${sealed.id as string}/signed-file`)
      const root = await (await server.request('/.well-known/signet-root.pem')).text()
      expect((await verifyPdf(file, { trustAnchors: [root, tsa.rootPem] })).verdict).toBe('verified')
      // Without the TSA's root the time is proven by an authority nobody trusts.
      expect((await verifyPdf(file, { trustAnchors: [root] })).verdict).toBe('verified-untrusted-root')
      expect(pdfsigReport(file)).toContain('Signature is Valid.')
      const facts = await bodyOf(await server.request(`/verify/${sealed.id as string}.json`))
      expect(facts).toMatchObject({ timestamp_authority: 'Test Third-Party TSA', built_in_timestamp_authority: false })
    } finally {
      await server.close()
    }
  })
})

/** An authority the test switches off and on; while off it fails like an unreachable server. */
function switchableTsa(inner: NamedTimestampAuthority): NamedTimestampAuthority & { up: boolean } {
  return {
    name: inner.name,
    up: false,
    async timestamp(digest, algorithm) {
      if (!this.up) throw new Error('connect ECONNREFUSED 127.0.0.1:9')
      return inner.timestamp(digest, algorithm)
    },
  }
}

describe.runIf(haveTools('openssl'))('every authority down', () => {
  let tsa: OpensslTsa
  let server: TestServer
  let authority: ReturnType<typeof switchableTsa>
  const time = movableClock()

  beforeAll(async () => {
    tsa = await startOpensslTsa()
    authority = switchableTsa(httpTimestampAuthority(tsa.url))
    server = await startTestServer({ clock: time.clock, timestampAuthority: authority, env: { JOB_POLL_MS: '100' } })
  })
  afterAll(async () => {
    await server?.close()
    await tsa?.close()
  })

  test('the seal waits, visibly, and is completed by the background job once an authority answers', async () => {
    const org = await setupOrg(server)
    await verifyIdentity(server, org.orgId)
    const response = await postSeal(server, org.apiKey, await makePdf(1), { title: 'Waiting for time' })
    expect(response.status).toBe(202)
    const pending = await bodyOf<Json>(response)
    expect(pending).toMatchObject({ seal_status: 'pending', sealed_at: null, sha256: null, timestamp_authority: null })
    expect(pending.last_error).toMatch(/ECONNREFUSED/)
    const id = pending.id as string
    await expectError(await server.request(`/api/v1/documents/${id}/badge`, { key: org.apiKey }), 404, "This document hasn't been sealed yet.")
    await expectError(await server.request(`/api/v1/documents/${id}/signed-file`, { key: org.apiKey }), 404, "This document hasn't been sealed yet.")
    expect((await server.request(`/verify/${id}`)).status).toBe(404)

    // A signed document completing meanwhile waits too, and its 404 says why.
    const signing = await sendForSigning(server, org)
    await signing.signers[0]?.view()
    expect((await signing.signers[0]?.finish(valuesFor(0)))?.status).toBe(200)
    server.services.finalPdfs.kick()
    await server.services.finalPdfs.drain()
    await expectError(
      await server.request(`/api/v1/documents/${signing.documentId}/signed-file`, { key: org.apiKey }),
      404,
      /^The signed PDF is not ready yet \(no time-stamp authority produced a token: .*ECONNREFUSED.*\)\.$/,
    )

    // Still down when the retry comes: still pending, never untimed.
    time.advance(11_000)
    server.services.finalPdfs.kick()
    await server.services.finalPdfs.drain()
    expect(await bodyOf(await server.request(`/api/v1/seals/${id}`, { key: org.apiKey }))).toMatchObject({ seal_status: 'pending' })

    authority.up = true
    time.advance(60_000)
    server.services.finalPdfs.kick()
    await server.services.finalPdfs.drain()
    const sealed = await bodyOf<Json>(await server.request(`/api/v1/seals/${id}`, { key: org.apiKey }))
    expect(sealed).toMatchObject({ seal_status: 'sealed', last_error: null, timestamp_authority: 'Test Third-Party TSA' })
    const file = await download(server, org.apiKey, `/api/v1/documents/${id}/signed-file`)
    const root = await (await server.request('/.well-known/signet-root.pem')).text()
    expect((await verifyPdf(file, { trustAnchors: [root, tsa.rootPem] })).verdict).toBe('verified')
    const signed = await download(server, org.apiKey, `/api/v1/documents/${signing.documentId}/signed-file`)
    expect((await verifyPdf(signed, { trustAnchors: [root, tsa.rootPem] })).verdict).toBe('verified')
  })
})

describe('signed documents are sealed too', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_MS: '100' } })
  })
  afterAll(async () => {
    await server?.close()
  })

  test('the signed PDF carries the seal (PAdES B-T) and has a public verification page', async () => {
    const org = await setupOrg(server, { name: 'Northwind' })
    const { documentId, signers } = await sendForSigning(server, org, { roles: [0, 1] })
    for (const [index, signer] of signers.entries()) {
      await signer.view()
      expect((await signer.finish(valuesFor(index))).status).toBe(200)
    }
    server.services.finalPdfs.kick()
    await server.services.finalPdfs.drain()
    const file = await download(server, org.apiKey, `/api/v1/documents/${documentId}/signed-file`)
    const root = await (await server.request('/.well-known/signet-root.pem')).text()
    const result = await verifyPdf(file, { trustAnchors: [root] })
    expect(result.verdict).toBe('verified')
    if (haveTools('pdfsig')) {
      const report = pdfsigReport(file)
      expect(report).toContain('Signature is Valid.')
      expect(report).toContain('Total document signed')
    }
    const facts = await bodyOf(await server.request(`/verify/${documentId}.json`))
    expect(facts).toMatchObject({ kind: 'signed', sealed_by: 'Northwind', signer_count: 2, sealed_file_sha256: result.fileSha256 })
    // A signed document is not a Verified Badge seal.
    await expectError(await server.request(`/api/v1/documents/${documentId}/badge`, { key: org.apiKey }), 404)
    await expectError(
      await server.request(`/api/v1/documents/${documentId}/certificate`, { key: org.apiKey }),
      404,
      'No standalone certificate for this document.',
    )
  })
})

describe('the seal key', () => {
  test.runIf(haveTools('openssl'))("SEAL_P12 replaces the generated seal key; /.well-known publishes its root and the built-in TSA's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'signet-p12-'))
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })
    try {
      writeFileSync(
        join(dir, 'ca.cnf'),
        `${OPENSSL_CA_CONFIG}\n[ seal_ext ]\nbasicConstraints = critical, CA:false\nkeyUsage = critical, digitalSignature, nonRepudiation\n`,
      )
      openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'root.key')
      openssl(
        'req',
        '-new',
        '-x509',
        '-config',
        'ca.cnf',
        '-key',
        'root.key',
        '-subj',
        '/CN=Acme Issuing Root/O=Acme',
        '-days',
        '30',
        '-extensions',
        'root_ext',
        '-out',
        'root.pem',
      )
      openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'seal.key')
      openssl('req', '-new', '-config', 'ca.cnf', '-key', 'seal.key', '-subj', '/CN=Acme Document Seal/O=Acme', '-out', 'seal.csr')
      openssl(
        'x509',
        '-req',
        '-in',
        'seal.csr',
        '-CA',
        'root.pem',
        '-CAkey',
        'root.key',
        '-CAcreateserial',
        '-days',
        '30',
        '-extfile',
        'ca.cnf',
        '-extensions',
        'seal_ext',
        '-out',
        'seal.pem',
      )
      openssl('pkcs12', '-export', '-inkey', 'seal.key', '-in', 'seal.pem', '-certfile', 'root.pem', '-passout', 'pass:s3cret', '-out', 'seal.p12')

      const server = await startTestServer({ env: { SEAL_P12: join(dir, 'seal.p12'), SEAL_P12_PASSWORD: 's3cret' } })
      try {
        const org = await setupOrg(server)
        await verifyIdentity(server, org.orgId)
        const sealed = await bodyOf(await postSeal(server, org.apiKey, await makePdf(1), { title: 'Sealed with our own key' }))
        const file = await download(server, org.apiKey, `/api/v1/documents/${sealed.id as string}/signed-file`)
        const published = await (await server.request('/.well-known/signet-root.pem')).text()
        expect(published.match(/BEGIN CERTIFICATE/g)).toHaveLength(2)
        expect(published).toContain(readFileSync(join(dir, 'root.pem'), 'utf8').trim())
        const result = await verifyPdf(file, { trustAnchors: [published] })
        expect(result.verdict).toBe('verified')
        expect(result.signatures[0]?.signer?.commonName).toBe('Acme Document Seal')
      } finally {
        await server.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  // On the embedded database in a DATA_DIR (the PostgreSQL pass has no directory to restart from).
  test.skipIf(process.env.DATABASE_URL !== undefined)('is generated once and kept in the database: a restart seals with the same root', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'signet-pki-'))
    const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_URL: 'http://signet.test', DATA_DIR: dir })
    const logger = createLogger(config)
    const target = { pgliteDir: join(dir, 'db') }
    try {
      const pdfWork = new PdfWork(config.pdfWork, config.pdfLimits, logger)
      const first = await openDatabase(target)
      const before = await loadSealer({ config, db: first.db, clock: systemClock, logger, pdfWork })
      const sealed = await before.seal(await makePdf(1), { reason: 'test' })
      await first.close()
      const second = await openDatabase(target)
      const after = await loadSealer({ config, db: second.db, clock: systemClock, logger, pdfWork })
      await second.close()
      expect(after.publishedRootsPem).toBe(before.publishedRootsPem)
      expect((await verifyPdf(sealed.bytes, { trustAnchors: [after.publishedRootsPem] })).verdict).toBe('verified')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

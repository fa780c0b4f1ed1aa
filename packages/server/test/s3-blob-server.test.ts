import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { objectKeyOf, s3ClientFor } from '../src/adapters/s3-blob-store.ts'
import * as schema from '../src/db/schema.ts'
import { setupOrg } from './helpers/api.ts'
import { saveSignedPdf } from './helpers/documents.ts'
import { startLocalS3, S3RVER_CREDENTIALS, type LocalS3 } from './helpers/local-s3.ts'
import { cleanUpProcesses, freePort, makeTempDir, startServer } from './helpers/processes.ts'
import { sendForSigning, valuesFor } from './helpers/signing.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

const engine = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'

describe(`BLOB_STORE=s3 (${engine})`, () => {
  let s3: LocalS3

  beforeAll(async () => {
    s3 = await startLocalS3()
  })
  afterAll(async () => {
    await cleanUpProcesses()
    await s3.close()
  })

  describe('through the API', () => {
    let server: TestServer
    let client: S3Client

    beforeAll(async () => {
      for (const [name, value] of Object.entries(S3RVER_CREDENTIALS)) vi.stubEnv(name, value)
      server = await startTestServer({ env: { ...s3.env, JOB_POLL_MS: '100' } })
      client = await s3ClientFor(s3.pathStyle)
    })
    afterAll(async () => {
      client?.destroy()
      await server?.close()
      vi.unstubAllEnvs()
    })

    it('keeps a signed document’s files in the bucket and serves the signed PDF from it', async () => {
      const org = await setupOrg(server)
      const { documentId, signers } = await sendForSigning(server, org)
      expect((await signers[0]!.finish(valuesFor(0))).status).toBe(200)
      const path = await saveSignedPdf(server, org.apiKey, documentId, join(makeTempDir('s3-download'), 'signed.pdf'), 60_000)
      const downloaded = readFileSync(path)
      expect(downloaded.subarray(0, 5).toString('latin1')).toBe('%PDF-')

      const [document] = await server.services.db.select().from(schema.documents).where(eq(schema.documents.id, documentId))
      const sha256 = document?.signedPdfSha256 ?? ''
      const [row] = await server.services.db.select().from(schema.blobs).where(eq(schema.blobs.sha256, sha256))
      expect(row).toMatchObject({ bytes: null, size: downloaded.byteLength })
      // What was served is the object in the bucket, byte for byte.
      const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: objectKeyOf(sha256) }))
      expect(Buffer.compare(Buffer.from((await object.Body?.transformToByteArray()) ?? []), downloaded)).toBe(0)
    })
  })

  describe('a bad bucket configuration refuses the start, naming the setting', () => {
    const refusal = async (env: Record<string, string>) => {
      const failure = await startServer({ dataDir: makeTempDir('s3-refusal'), env: { ...s3.env, ...env } }).then(
        () => new Error('the server started'),
        (error: Error) => error,
      )
      return failure.message
    }

    it('refuses each bad setting with exit code 1', async () => {
      const unusedPort = await freePort()
      // (s3rver does not check SigV4 signatures, so a wrong secret cannot be refused here; S3 answers it 403 as a wrong key.)
      const [noBucketSetting, noSuchBucket, wrongKey, unreachable] = await Promise.all([
        refusal({ S3_BUCKET: '' }),
        refusal({ S3_BUCKET: 'no-such-bucket' }),
        refusal({ AWS_ACCESS_KEY_ID: 'WRONGKEY' }),
        refusal({ S3_ENDPOINT: `http://127.0.0.1:${unusedPort}` }),
      ])
      for (const message of [noBucketSetting, noSuchBucket, wrongKey, unreachable]) expect(message).toContain('"code":1')
      expect(noBucketSetting).toMatch(/S3_BUCKET must name the bucket/)
      expect(noSuchBucket).toMatch(/S3_BUCKET: the bucket "no-such-bucket" does not exist/)
      expect(wrongKey).toMatch(/AWS_ACCESS_KEY_ID \/ AWS_SECRET_ACCESS_KEY: S3 refused these credentials/)
      expect(unreachable).toMatch(new RegExp(`S3_ENDPOINT \\(http://127.0.0.1:${unusedPort}\\): the S3 service could not be reached`))
      // Five embedded databases created at once on a busy machine.
    }, 240_000)
  })
})

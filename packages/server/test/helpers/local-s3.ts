import { lookup } from 'node:dns'
import { Agent } from 'node:http'
import type { LookupFunction } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import S3rver from 's3rver'
import type { S3Settings } from '../../src/config.ts'

/** s3rver's fixed key pair: any other is refused with InvalidAccessKeyId or SignatureDoesNotMatch. */
export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' }

export interface LocalS3 {
  port: number
  bucket: string
  /** Bucket in the path: http://127.0.0.1:<port>/<bucket>/<key>. */
  pathStyle: S3Settings
  /** Bucket in the host name: http://<bucket>.s3.localhost:<port>/<key> (resolved by `virtualHostHandler`). */
  virtualHosted: S3Settings
  /** The environment a server process needs for this bucket, path-style. */
  env: Record<string, string>
  close(): Promise<void>
}

/**
 * The SDK's request handler for `virtualHosted`: every host name resolves to 127.0.0.1, since
 * `<bucket>.s3.localhost` does not resolve on every machine; the names looked up go into `hostnames`.
 */
export function virtualHostHandler(hostnames: string[]) {
  const toLoopback = ((hostname, options, callback) => {
    hostnames.push(hostname)
    lookup('127.0.0.1', options, callback)
  }) as LookupFunction
  return { httpAgent: new Agent({ lookup: toLoopback }), connectionTimeout: 5_000 }
}

/** An S3-speaking server on a free port over a temp dir, with one bucket; close() removes both. */
export async function startLocalS3(bucket = 'signet'): Promise<LocalS3> {
  const directory = mkdtempSync(join(tmpdir(), 'signet-s3rver-'))
  // serviceEndpoint: requests to <bucket>.s3.localhost name the bucket in the host.
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, serviceEndpoint: 'localhost', configureBuckets: [{ name: bucket }] })
  const { port } = await server.run()
  const pathStyle = { bucket, region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true }
  return {
    port,
    bucket,
    pathStyle,
    virtualHosted: { ...pathStyle, endpoint: `http://s3.localhost:${port}`, forcePathStyle: false },
    env: { BLOB_STORE: 's3', S3_BUCKET: bucket, S3_ENDPOINT: pathStyle.endpoint, S3_FORCE_PATH_STYLE: 'true', ...S3RVER_CREDENTIALS },
    async close() {
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'

const problemsOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    loadConfig(env)
    return []
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
}

describe('BLOB_STORE and the S3 settings', () => {
  it('keeps blobs in the database by default', () => {
    expect(loadConfig({}).blobStore).toEqual({ kind: 'database' })
  })

  it('reads the bucket settings, with their defaults', () => {
    expect(loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'signet-files' }).blobStore).toEqual({
      kind: 's3',
      bucket: 'signet-files',
      region: 'us-east-1',
      endpoint: undefined,
      forcePathStyle: false,
    })
    expect(
      loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'b', S3_REGION: 'eu-west-3', S3_ENDPOINT: 'https://minio.internal:9000', S3_FORCE_PATH_STYLE: 'true' })
        .blobStore,
    ).toEqual({ kind: 's3', bucket: 'b', region: 'eu-west-3', endpoint: 'https://minio.internal:9000', forcePathStyle: true })
  })

  it('names every bad setting at once', () => {
    expect(problemsOf({ BLOB_STORE: 'disk' })).toEqual(['BLOB_STORE must be "database" or "s3" (got "disk")'])
    expect(problemsOf({ BLOB_STORE: 's3', S3_BUCKET: ' ', S3_ENDPOINT: 'minio:9000', S3_FORCE_PATH_STYLE: 'yes' })).toEqual([
      'S3_ENDPOINT must use http: or https: (got "minio:")',
      'S3_FORCE_PATH_STYLE must be "true" or "false" (got "yes")',
      'S3_BUCKET must name the bucket blobs are kept in when BLOB_STORE=s3',
    ])
  })
})

import type { BlobStream } from '../../src/adapters/blob-store.ts'

/** What an opened blob streams, whole (empty when the store had no such blob). */
export async function drained(opened: BlobStream | undefined): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of opened?.stream ?? []) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

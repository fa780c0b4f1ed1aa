import type { FastifyReply } from 'fastify'
import type { FileDownload } from '../documents/document-files.ts'

/** An attachment download; the UTF-8 filename (RFC 6266/5987) keeps non-ASCII titles intact. A stored file is streamed with its length. */
export function sendFile(reply: FastifyReply, file: FileDownload): FastifyReply {
  const ascii = file.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
  void reply.type(file.contentType).header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`)
  if (file.body instanceof Uint8Array) return reply.send(Buffer.from(file.body.buffer, file.body.byteOffset, file.body.byteLength))
  return reply.header('content-length', file.body.size).send(file.body.stream)
}

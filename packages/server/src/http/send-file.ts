import type { FastifyReply } from 'fastify'
import type { FileDownload } from '../documents/document-files.ts'

/** An attachment download; the UTF-8 filename (RFC 6266/5987) keeps non-ASCII titles intact. */
export function sendFile(reply: FastifyReply, file: FileDownload): FastifyReply {
  const ascii = file.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return reply
    .type(file.contentType)
    .header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`)
    .send(Buffer.from(file.bytes))
}

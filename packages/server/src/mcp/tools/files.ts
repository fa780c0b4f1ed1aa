import { Type } from 'typebox'
import { bytesOf, getBadgeImage, getCertificateFile, getSignedFile, type FileDownload } from '../../documents/document-files.ts'
import { sha256Hex } from '../../lib/crypto.ts'
import { verifyUrlOf } from '../../seal/verify-url.ts'
import type { ExtraContent } from '../tool.ts'
import { defineTool } from '../tool.ts'
import { DocumentIdInput } from './inputs.ts'

const FileOutput = Type.Object(
  {
    document_id: Type.String({ format: 'uuid' }),
    filename: Type.String(),
    size_bytes: Type.Integer({ minimum: 0 }),
    sha256: Type.String({ description: 'SHA-256 of the file, hex' }),
    download_url: Type.String({ format: 'uri', description: 'the same file over the REST API (Authorization: Bearer <API key>)' }),
  },
  { additionalProperties: false },
)

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')

/** A file as the structured result plus the file itself as an embedded resource. */
async function fileOutcome(documentId: string, file: FileDownload, downloadUrl: string) {
  const bytes = await bytesOf(file)
  const resource: ExtraContent = { type: 'resource', resource: { uri: downloadUrl, mimeType: file.contentType, blob: base64(bytes) } }
  return {
    structured: {
      document_id: documentId,
      filename: file.filename,
      size_bytes: bytes.byteLength,
      sha256: file.sha256 ?? sha256Hex(bytes),
      download_url: downloadUrl,
    },
    extra: [resource],
  }
}

const documentUrl = (publicUrl: string, documentId: string, file: string) => `${publicUrl}/api/v1/documents/${documentId}/${file}`

/** A tool that returns one of a document's stored PDFs, as the REST download of the same name does. */
const pdfFileTool = (spec: { name: string; title: string; description: string; path: string; get: typeof getSignedFile }) =>
  defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: DocumentIdInput,
    output: FileOutput,
    scope: 'read',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ services, actor }, { document_id }) =>
      fileOutcome(document_id, await spec.get(services, actor, document_id), documentUrl(services.config.publicUrl, document_id, spec.path)),
  })

export const getSignedFileTool = pdfFileTool({
  name: 'get_signed_file',
  title: 'Download the signed PDF',
  description:
    'Returns the final PDF of a completed document as an embedded resource (application/pdf, base64): the flattened signed PDF with its signing certificate, ' +
    'sealed by this service; for a self-sealed document, the sealed file. Only once get_document_status says completed; before that it says the file is not ready.',
  path: 'signed-file',
  get: getSignedFile,
})

export const getCertificateFileTool = pdfFileTool({
  name: 'get_certificate_file',
  title: 'Download the standalone seal certificate',
  description:
    'Returns the standalone certificate PDF of a document sealed with seal_document in certificate_mode "separate" or "both", as an embedded resource (application/pdf). ' +
    'Documents sealed with "appended" carry the certificate inside the sealed file instead (get_signed_file).',
  path: 'certificate',
  get: getCertificateFile,
})

export const getBadgeImageTool = defineTool({
  name: 'get_badge_image',
  title: 'Get the Verified Badge',
  description:
    'Returns the Verified Badge of a document sealed with seal_document: a 640×820 PNG with a QR code to the public verification page, ' +
    'plus verify_url, the page anyone can open to check the file. Share the badge or the link alongside the sealed PDF.',
  input: DocumentIdInput,
  output: Type.Object(
    { document_id: Type.String({ format: 'uuid' }), verify_url: Type.String({ format: 'uri', description: 'the public verification page' }) },
    { additionalProperties: false },
  ),
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async ({ services, actor }, { document_id }) => {
    const badge = await getBadgeImage(services, actor, document_id)
    return {
      structured: { document_id, verify_url: verifyUrlOf(services.config.publicUrl, document_id) },
      extra: [{ type: 'image', data: base64(badge.body), mimeType: badge.contentType }],
    }
  },
})

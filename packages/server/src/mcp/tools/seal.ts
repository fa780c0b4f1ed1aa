import { Type } from 'typebox'
import { getBadgeImage } from '../../documents/document-files.ts'
import { AppError, invalid } from '../../errors.ts'
import { requestSeal } from '../../seal/request-seal.ts'
import { SealQuery, SealView } from '../../seal/seal.schemas.ts'
import { defineTool, type ExtraContent } from '../tool.ts'

/** Base64 as RFC 4648 writes it (line breaks allowed, as some encoders wrap at 76 characters). */
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/

const seal = SealQuery.properties
const view = SealView.properties

/** The longest base64 text a PDF within PDF_MAX_MB can take (4 characters per 3 bytes, line breaks aside). */
export const maxBase64Length = (maxBytes: number): number => Math.ceil((Math.ceil(maxBytes / 3) * 4 * 11) / 10)

const SealOutput = Type.Object(
  {
    document_id: view.id,
    status: view.status,
    seal_status: view.seal_status,
    verify_url: view.verify_url,
    sealed_file_url: view.sealed_file_url,
    certificate_file_url: view.certificate_file_url,
    badge_image_url: view.badge_image_url,
    sha256: view.sha256,
    original_sha256: view.original_sha256,
    sealed_at: view.sealed_at,
    timestamp_authority: view.timestamp_authority,
    last_error: view.last_error,
    note: Type.String(),
  },
  { additionalProperties: false },
)

function noteOn(status: SealView['seal_status'], lastError: string | null): string {
  switch (status) {
    case 'sealed':
      return 'Sealed and timestamped. Share verify_url (or the badge) with the sealed file; get_signed_file returns the sealed PDF.'
    case 'pending':
      return `Not sealed yet: ${lastError ?? 'no time-stamp authority answered'}. The seal is retried in the background and never made without a timestamp; call get_badge_image later.`
    case 'failed':
      return `The seal could not be made (${lastError ?? 'unknown error'}); the operator of this service has been alerted.`
  }
}

function decodePdf(text: string, maxBytes: number): Buffer {
  if (!BASE64.test(text)) throw invalid('file_base64 must be the PDF encoded as base64.')
  const bytes = Buffer.from(text, 'base64')
  if (bytes.byteLength === 0) throw invalid('file_base64 is empty: send the PDF encoded as base64.')
  if (bytes.byteLength > maxBytes) throw new AppError('payload_too_large', `The PDF is larger than ${maxBytes} bytes (PDF_MAX_MB).`)
  return bytes
}

export const sealDocumentTool = (maxPdfBytes: number) =>
  defineTool({
    name: 'seal_document',
    title: 'Seal a finished PDF',
    description:
      'Certifies a finished PDF as issued by this organization and unaltered since: the service hashes it, adds a PAdES seal with an RFC 3161 timestamp from an independent time-stamp authority, ' +
      'and returns a public verification link (verify_url) and a Verified Badge image. It never asks anyone to sign; to collect signatures use create_and_send_document. ' +
      "Needs the organization's one-time identity check (done by a person in the dashboard) and counts against the plan's allowance. " +
      'certificate_mode: "both" (default) appends a certificate page and also makes a standalone certificate, "separate" leaves the PDF untouched plus a standalone certificate, "appended" only appends. ' +
      'Fetch the sealed file with get_signed_file, the certificate with get_certificate_file, the badge again with get_badge_image. ' +
      'If no time-stamp authority answers, seal_status is "pending" and the seal is retried in the background (never made without a timestamp): check again with get_badge_image later.',
    input: Type.Object(
      {
        file_base64: Type.String({
          minLength: 1,
          maxLength: maxBase64Length(maxPdfBytes),
          description: `the PDF, base64-encoded (at most ${Math.floor(maxPdfBytes / 1024 / 1024)} MB decoded)`,
        }),
        filename: seal.filename,
        title: seal.title,
        certificate_mode: seal.certificate_mode,
      },
      { additionalProperties: false },
    ),
    output: SealOutput,
    scope: 'write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: async ({ services, actor }, input) => {
      const pdf = decodePdf(input.file_base64, maxPdfBytes)
      const sealed = await requestSeal(services, actor, { pdf, title: input.title, filename: input.filename, certificateMode: input.certificate_mode })
      const extra: ExtraContent[] = []
      if (sealed.seal_status === 'sealed') {
        const badge = await getBadgeImage(services, actor, sealed.id)
        extra.push({ type: 'image', data: Buffer.from(badge.body).toString('base64'), mimeType: badge.contentType })
      }
      const structured = {
        document_id: sealed.id,
        status: sealed.status,
        seal_status: sealed.seal_status,
        verify_url: sealed.verify_url,
        sealed_file_url: sealed.sealed_file_url,
        certificate_file_url: sealed.certificate_file_url,
        badge_image_url: sealed.badge_image_url,
        sha256: sealed.sha256,
        original_sha256: sealed.original_sha256,
        sealed_at: sealed.sealed_at,
        timestamp_authority: sealed.timestamp_authority,
        last_error: sealed.last_error,
        note: noteOn(sealed.seal_status, sealed.last_error),
      }
      return { structured, extra }
    },
  })

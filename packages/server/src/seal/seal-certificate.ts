import { PDF } from '@libpdf/core'
import { certificatePageSize, LETTER } from '../signing/signed-pdf.ts'
import { embedFonts } from '../signing/signed-pdf-text.ts'
import { drawSealCertificate } from './seal-certificate-sheet.ts'
import type { SealCertificateFacts } from './seal-certificate-facts.ts'

/** Standalone certificate PDF (US Letter, 1+ pages). */
export async function renderSealCertificatePdf(facts: SealCertificateFacts): Promise<Uint8Array> {
  const pdf = PDF.create()
  drawSealCertificate(pdf, await embedFonts(pdf), facts, LETTER)
  pdf.setTitle(`Certificate of Seal: ${facts.title}`, { showInWindowTitleBar: true })
  pdf.setProducer('Signet')
  pdf.setCreationDate(facts.requestedAt)
  pdf.setModificationDate(facts.requestedAt)
  return pdf.save({ subsetFonts: true })
}

/**
 * The original PDF with the certificate page(s) appended, written as an incremental update so the
 * original bytes stay a byte-for-byte prefix (any earlier signatures stay valid, and anyone can
 * check the original's hash against the start of the sealed file). Page size follows the
 * original's first page. The original's metadata is left as it was.
 *
 * Throws for a PDF that cannot be extended without rewriting it (a damaged cross-reference table
 * @libpdf/core had to rebuild, or a linearized file it refuses to update); requestSeal refuses
 * those at upload.
 */
export async function appendSealCertificate(originalPdf: Uint8Array, facts: SealCertificateFacts): Promise<Uint8Array> {
  const pdf = await PDF.load(originalPdf)
  const blocker = pdf.canSaveIncrementally()
  if (blocker !== null) throw new Error(`cannot append the certificate without rewriting the PDF (${blocker})`)
  drawSealCertificate(pdf, await embedFonts(pdf), facts, certificatePageSize(pdf))
  const sealed = await pdf.save({ incremental: true, subsetFonts: true })
  // @libpdf/core falls back to a full rewrite with only a warning; the prefix is this function's promise, so check it.
  if (!isPrefix(originalPdf, sealed)) throw new Error('the certificate was not written as an incremental update')
  return sealed
}

function isPrefix(prefix: Uint8Array, bytes: Uint8Array): boolean {
  return bytes.length > prefix.length && Buffer.from(bytes.buffer, bytes.byteOffset, prefix.length).equals(prefix)
}

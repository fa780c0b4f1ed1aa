import { rgb, type PDF, type PDFPage, type Rect } from '@libpdf/core'
import {
  certificateFooters,
  certificateHeader,
  drawRows,
  INK,
  LABEL_WIDTH,
  LINE,
  MUTED,
  row,
  rowsHeight,
  sectionTitle,
  Sheet,
  VALUE_SIZE,
} from '../signing/signed-pdf-certificate.ts'
import type { PageSize } from '../pdf-geometry/page-frame.ts'
import { utc, wrap, type PdfFontSet } from '../signing/signed-pdf-text.ts'
import { QUIET_ZONE, qrCode, type QrCode } from './badge-qr.ts'
import type { SealCertificateFacts } from './seal-certificate-facts.ts'

const MODE: Record<SealCertificateFacts['certificateMode'], string> = {
  appended: 'Appended: this certificate is part of the sealed file, after the original pages.',
  separate: 'Separate: the sealed file is the original PDF, unchanged; this certificate is a file of its own.',
  both: 'Both: appended to the sealed file after the original pages, and issued as a file of its own.',
}

/** Side of the printed QR code without its quiet zone, in points: about 3.4 cm, easy for a phone at reading distance. */
const QR_SIDE = 96
const NOTE_SIZE = 8.5
const NOTE_LINE = 12
/** Link blue with 7:1 contrast on white. */
const LINK = rgb(0.05, 0.27, 0.62)
const CLI_NOTE =
  'Or offline, with the open-source signet-verify command-line tool (npm package @signet/verify): it checks the signature and the time-stamp without asking Signet.'

function documentSection(sheet: Sheet, facts: SealCertificateFacts): void {
  const { mono } = sheet.fonts
  const rows = [
    row(sheet, 'Title', facts.title),
    row(sheet, 'File name', facts.filename ?? '—'),
    row(sheet, 'Pages', String(facts.originalPageCount)),
    row(sheet, 'Original SHA-256', facts.originalSha256, { font: mono, size: 8.5 }),
    row(sheet, 'Document ID', facts.documentId, { font: mono, size: 8.5 }),
  ]
  sectionTitle(sheet, 'Sealed document', rowsHeight(rows))
  drawRows(sheet, rows)
}

function sealerSection(sheet: Sheet, facts: SealCertificateFacts): void {
  const rows = [row(sheet, 'Organization', facts.orgLegalName), row(sheet, 'Identity verified (UTC)', utc(facts.identityVerifiedAt))]
  sectionTitle(sheet, 'Sealed by', rowsHeight(rows))
  drawRows(sheet, rows)
}

function sealSection(sheet: Sheet, facts: SealCertificateFacts): void {
  const rows = [
    row(sheet, 'Requested (UTC)', utc(facts.requestedAt)),
    row(sheet, 'Signature', `PAdES digital signature by ${facts.sealSubject}`),
    // The signature is applied after this page is drawn, so the proven time cannot be printed here.
    row(sheet, 'Time-stamp', 'RFC 3161 time-stamp inside the signature: it proves when the seal was applied. The verification page shows that time.'),
    row(sheet, 'Certificate', MODE[facts.certificateMode]),
  ]
  sectionTitle(sheet, 'Seal', rowsHeight(rows))
  drawRows(sheet, rows)
}

/** The QR code with its top-left corner at (x, top), as one filled path of the dark runs. */
function drawQr(page: PDFPage, code: QrCode, x: number, top: number): void {
  const module = QR_SIDE / code.size
  const path = page.drawPath()
  for (const run of code.runs) path.rectangle(x + run.col * module, top - (run.row + 1) * module, run.length * module, module)
  path.fill({ color: INK })
}

/** The QR code in the label column, and beside it the URL (both links) and the offline alternative. */
function verifySection(sheet: Sheet, facts: SealCertificateFacts): void {
  const { regular, bold } = sheet.fonts
  const code = qrCode(facts.verifyUrl)
  const quiet = (QUIET_ZONE * QR_SIDE) / code.size
  const x = sheet.left + LABEL_WIDTH
  const width = sheet.right - x
  // Room for any real URL: a cut one could not be typed in.
  const url = wrap(regular, facts.verifyUrl, VALUE_SIZE, width, 6)
  const cli = wrap(regular, CLI_NOTE, NOTE_SIZE, width, 4)
  const textHeight = LINE * (1 + url.length) + 6 + NOTE_LINE * cli.length
  sectionTitle(sheet, 'Verify', Math.max(QR_SIDE, textHeight) + 2 * quiet)

  const page = sheet.currentPage
  const top = sheet.y - quiet
  drawQr(page, code, sheet.left, top)
  // Without a border width viewers draw the link's default frame.
  const link = (rect: Rect) => page.addLinkAnnotation({ rect, uri: facts.verifyUrl, borderWidth: 0 })
  link({ x: sheet.left, y: top - QR_SIDE, width: QR_SIDE, height: QR_SIDE })
  let y = top - 9
  sheet.text('Check this seal at', x, y, bold, VALUE_SIZE)
  for (const line of url) sheet.text(line, x, (y -= LINE), regular, VALUE_SIZE, LINK)
  const urlWidth = Math.max(...url.map((line) => regular.widthOf(line, VALUE_SIZE)))
  link({ x, y: y - 3, width: urlWidth, height: LINE * url.length })
  y -= 6
  for (const line of cli) sheet.text(line, x, (y -= NOTE_LINE), regular, NOTE_SIZE, MUTED)
  sheet.y = Math.min(y, top - QR_SIDE) - quiet
}

/**
 * Draws the certificate of seal onto new pages at the end of `pdf` (one page, more for very long
 * values), and writes the fonts: the certificate is the last thing drawn on the document.
 */
export function drawSealCertificate(pdf: PDF, fonts: PdfFontSet, facts: SealCertificateFacts, size: PageSize): void {
  const sheet = new Sheet(pdf, fonts, size)
  certificateHeader(sheet, 'Certificate of Seal', `Issued by Signet for ${facts.orgLegalName}: what was sealed, by whom, and how to check the seal.`)
  documentSection(sheet, facts)
  sealerSection(sheet, facts)
  sealSection(sheet, facts)
  verifySection(sheet, facts)
  certificateFooters(sheet, `Signet certificate of seal · Document ${facts.documentId}`)
  fonts.finish()
}

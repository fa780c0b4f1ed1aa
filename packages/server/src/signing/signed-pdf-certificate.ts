import { rgb, type Color, type PDF, type PDFPage } from '@libpdf/core'
import { AUDIT_EVENT_LABELS, AUTH_METHOD_LABELS, AUTH_METHODS, partyLabel, type AuditEventType, type AuthMethod } from '@signet/vocabulary'
import { truncate, utc, wrap, type PdfFont, type PdfFontSet } from './signed-pdf-text.ts'
import type { PageSize } from '../pdf-geometry/page-frame.ts'
import { catalogOf, translator, type MessageKey, type Translator } from './i18n/catalog.ts'
import type { SignerLanguage } from './i18n/languages.ts'

export interface CertificateSigner {
  name: string | null
  email: string
  role: number
  /** The template's name of the role as the document was sent ("Landlord"); null: "Party N". */
  roleName?: string | null
  /**
   * How the signer was identified: the audit trail's method ('email_link', 'email_link+email_code'),
   * printed in the certificate's language (its English words, e.g. 'E-mail link', are understood too);
   * any other text is printed as it is.
   */
  authMethod: AuthMethod | (string & {})
  ip: string | null
  userAgent: string | null
  viewedAt: Date | null
  signedAt: Date | null
}

export interface CertificateDetails {
  documentId: string
  title: string
  orgName: string
  /**
   * Who sent the document and how they authenticated, from the trail's document.sent event: the
   * certificate words it in its language (an AI agent's request says so); a text is printed as it is.
   */
  sentBy: SentBy | string
  /** SHA-256 hex of the original template PDF */
  originalSha256: string
  completedAt: Date
  signers: CertificateSigner[]
  /** Who was sent a copy of the completed PDF (cc), as "Name <address>"; empty for none. */
  copiesTo: string[]
  /** The audit trail in order, shown as a history table */
  auditTrail: { seq: number; type: AuditEventType; occurredAt: Date; actor: string | null; ip: string | null }[]
  /** hash of the last audit event (hex) — printed so the trail can be checked against the database */
  auditHeadHash: string
  /** The language of the certificate's fixed texts (the document's, else the workspace's); English when absent. */
  language?: SignerLanguage
}

/** Who sent a document, by the organization (the certificate's orgName). */
export interface SentBy {
  /** How the sender authenticated; null: the trail does not say. */
  method: AuthMethod | null
  /** Sent by an AI agent, through the agent-tool endpoint (MCP). */
  agent: boolean
}

/** A method in the certificate's language: an AuthMethod or its English words; anything else as it is. */
function authMethodText(t: Translator, method: string): string {
  const known = AUTH_METHODS.find((m) => m === method) ?? AUTH_METHODS.find((m) => AUTH_METHOD_LABELS[m] === method)
  return known ? t.text(`cert.auth.${known}`) : method
}

function sentByText(t: Translator, sentBy: CertificateDetails['sentBy'], org: string): string {
  if (typeof sentBy === 'string') return sentBy
  const method = sentBy.method ? authMethodText(t, sentBy.method) : t.text('cert.auth.unknown')
  return t.text(sentBy.agent ? 'cert.sentByAgent' : 'cert.sentByOrg', { org, method })
}

/*
 * The certificate's look and its layout primitives are exported so that other certificates (the
 * seal certificate) are drawn the same way.
 */
export const INK = rgb(0.11, 0.12, 0.14)
export const MUTED = rgb(0.43, 0.46, 0.5)
const RULE = rgb(0.8, 0.82, 0.85)
const HAIRLINE = rgb(0.9, 0.91, 0.93)
const SHADE = rgb(0.95, 0.96, 0.97)

const MARGIN = 54
const TOP = 56
/** Lowest baseline for content; the footer sits below. */
const BOTTOM = 64
const FOOTER_Y = 34
export const LABEL_WIDTH = 118
export const VALUE_SIZE = 9.5
const LABEL_SIZE = 8.5
export const LINE = 13
const ROW_GAP = 4
const TABLE_SIZE = 8
const TABLE_ROW = 14

interface Row {
  label: string
  lines: string[]
  font: PdfFont
  size: number
}

/** Lays out the certificate top to bottom, starting a new page when the next block does not fit. */
export class Sheet {
  readonly pages: PDFPage[] = []
  y = 0
  private page: PDFPage

  constructor(
    private readonly pdf: PDF,
    readonly fonts: PdfFontSet,
    readonly size: PageSize,
  ) {
    this.page = this.addPage()
  }

  /** The page being laid out. */
  get currentPage(): PDFPage {
    return this.page
  }

  get left(): number {
    return MARGIN
  }

  get right(): number {
    return this.size.width - MARGIN
  }

  addPage(): PDFPage {
    this.page = this.pdf.addPage({ width: this.size.width, height: this.size.height })
    this.pages.push(this.page)
    this.y = this.size.height - TOP
    return this.page
  }

  /** Starts a new page unless `height` points still fit; true when it did. */
  makeRoom(height: number): boolean {
    if (this.y - height >= BOTTOM) return false
    this.addPage()
    return true
  }

  /** `text` must already be clean (see Font.clean). */
  text(text: string, x: number, y: number, font: PdfFont, size: number, color: Color = INK): void {
    font.draw(this.page, text, { x, y, size, color })
  }

  rule(y: number, color: Color = RULE, thickness = 0.75, x1 = this.left, x2 = this.right): void {
    this.page.drawLine({ start: { x: x1, y }, end: { x: x2, y }, color, thickness })
  }

  shade(x: number, y: number, width: number, height: number): void {
    this.page.drawRectangle({ x, y, width, height, color: SHADE })
  }
}

export function sectionTitle(sheet: Sheet, title: string, keepWith: number): void {
  sheet.makeRoom(30 + keepWith)
  sheet.y -= 18
  sheet.text(title, sheet.left, sheet.y, sheet.fonts.bold, 11)
  sheet.y -= 6
  sheet.rule(sheet.y)
  sheet.y -= 4
}

export function row(sheet: Sheet, label: string, value: string, options: { font?: PdfFont; size?: number; maxLines?: number } = {}): Row {
  const font = options.font ?? sheet.fonts.regular
  const size = options.size ?? VALUE_SIZE
  const width = sheet.right - sheet.left - LABEL_WIDTH
  return { label, font, size, lines: wrap(font, value === '' ? '—' : value, size, width, options.maxLines ?? 3) }
}

export const rowsHeight = (rows: Row[]): number => rows.reduce((sum, r) => sum + r.lines.length * LINE + ROW_GAP, 0)

export function drawRows(sheet: Sheet, rows: Row[]): void {
  for (const r of rows) {
    sheet.y -= LINE
    sheet.text(r.label, sheet.left, sheet.y, sheet.fonts.regular, LABEL_SIZE, MUTED)
    r.lines.forEach((line, i) => sheet.text(line, sheet.left + LABEL_WIDTH, sheet.y - i * LINE, r.font, r.size))
    sheet.y -= (r.lines.length - 1) * LINE + ROW_GAP
  }
}

function documentSection(sheet: Sheet, details: CertificateDetails, t: Translator): void {
  const { mono } = sheet.fonts
  const rows = [
    row(sheet, t.text('cert.documentTitle'), details.title),
    row(sheet, t.text('cert.documentId'), details.documentId, { font: mono, size: 8.5 }),
    row(sheet, t.text('cert.organization'), details.orgName),
    row(sheet, t.text('cert.sentBy'), sentByText(t, details.sentBy, details.orgName)),
    row(sheet, t.text('cert.originalSha256'), details.originalSha256, { font: mono, size: 8.5 }),
    row(sheet, t.text('cert.completed'), utc(details.completedAt)),
    ...(details.copiesTo.length > 0 ? [row(sheet, t.text('cert.copiesTo'), details.copiesTo.join(', '), { maxLines: 6 })] : []),
  ]
  sectionTitle(sheet, t.text('cert.document'), rowsHeight(rows))
  drawRows(sheet, rows)
}

function signersSection(sheet: Sheet, signers: CertificateSigner[], t: Translator): void {
  const { bold, regular } = sheet.fonts
  signers.forEach((signer, i) => {
    const rows = [
      row(sheet, t.text('cert.email'), signer.email),
      row(sheet, t.text('cert.authentication'), authMethodText(t, signer.authMethod)),
      row(sheet, t.text('cert.ipAddress'), signer.ip ?? '—'),
      row(sheet, t.text('cert.userAgent'), signer.userAgent ?? '—', { maxLines: 2 }),
      row(sheet, t.text('cert.viewed'), utc(signer.viewedAt)),
      row(sheet, t.text('cert.signed'), utc(signer.signedAt)),
    ]
    const height = 24 + rowsHeight(rows)
    if (i === 0) sectionTitle(sheet, t.text('cert.signers', { count: signers.length }), height)
    else if (!sheet.makeRoom(height)) sheet.rule(sheet.y - 4, HAIRLINE, 0.5)
    // A signer's block is kept on one page. A long role name takes at most half the line from the signer's name.
    const party = truncate(
      regular,
      signer.roleName ?? (t.language === 'en' ? partyLabel(signer.role) : t.text('cert.party', { number: signer.role + 1 })),
      9,
      (sheet.right - sheet.left) / 2,
    )
    const partyWidth = regular.widthOf(party, 9)
    sheet.y -= 18
    sheet.text(truncate(bold, signer.name ?? signer.email, 10.5, sheet.right - sheet.left - partyWidth - 12), sheet.left, sheet.y, bold, 10.5)
    sheet.text(party, sheet.right - partyWidth, sheet.y, regular, 9, MUTED)
    sheet.y -= 2
    drawRows(sheet, rows)
  })
}

interface Column {
  title: string
  width: number
  cell: (event: CertificateDetails['auditTrail'][number]) => string
}

/** An audit event's words in the certificate's language (the vocabulary's English for an event no catalog has yet). */
function eventLabel(t: Translator, type: AuditEventType): string {
  const key = `cert.event.${type}`
  return key in catalogOf('en') ? t.text(key as MessageKey) : AUDIT_EVENT_LABELS[type]
}

function auditSection(sheet: Sheet, details: CertificateDetails, t: Translator): void {
  const { regular, bold } = sheet.fonts
  const fixed = 28 + 104 + 150 + 92
  const columns: Column[] = [
    { title: '#', width: 28, cell: (e) => String(e.seq) },
    { title: t.text('cert.time'), width: 104, cell: (e) => utc(e.occurredAt) },
    { title: t.text('cert.event'), width: 150, cell: (e) => eventLabel(t, e.type) },
    { title: t.text('cert.actor'), width: sheet.right - sheet.left - fixed, cell: (e) => e.actor ?? '—' },
    { title: t.text('cert.ipAddress'), width: 92, cell: (e) => e.ip ?? '—' },
  ]
  const header = (continued: boolean) => {
    sectionTitle(sheet, t.text(continued ? 'cert.auditTrailContinued' : 'cert.auditTrail'), 2 * TABLE_ROW)
    sheet.shade(sheet.left, sheet.y - TABLE_ROW, sheet.right - sheet.left, TABLE_ROW)
    let x = sheet.left
    for (const column of columns) {
      sheet.text(column.title, x + 4, sheet.y - TABLE_ROW + 4.5, bold, 7.5, MUTED)
      x += column.width
    }
    sheet.y -= TABLE_ROW
  }
  header(false)
  if (details.auditTrail.length === 0) {
    sheet.y -= TABLE_ROW
    sheet.text(t.text('cert.noEvents'), sheet.left + 4, sheet.y + 4.5, regular, TABLE_SIZE, MUTED)
  }
  for (const event of details.auditTrail) {
    if (sheet.makeRoom(TABLE_ROW)) header(true)
    sheet.y -= TABLE_ROW
    let x = sheet.left
    for (const column of columns) {
      sheet.text(truncate(regular, column.cell(event), TABLE_SIZE, column.width - 8), x + 4, sheet.y + 4.5, regular, TABLE_SIZE)
      x += column.width
    }
    sheet.rule(sheet.y, HAIRLINE, 0.5)
  }

  const rows = [row(sheet, t.text('cert.headHash'), details.auditHeadHash, { font: sheet.fonts.mono, size: 8.5 })]
  sectionTitle(sheet, t.text('cert.integrity'), rowsHeight(rows) + 12)
  drawRows(sheet, rows)
  const note = t.text('cert.headHashNote')
  sheet.text(truncate(regular, note, 7.5, sheet.right - sheet.left - LABEL_WIDTH), sheet.left + LABEL_WIDTH, sheet.y - 6, regular, 7.5, MUTED)
}

/** The heading every certificate starts with: a title, one line of introduction, a strong rule. */
export function certificateHeader(sheet: Sheet, title: string, intro: string): void {
  const { bold, regular } = sheet.fonts
  sheet.y -= 20
  sheet.text(title, sheet.left, sheet.y, bold, 20)
  sheet.y -= 16
  sheet.text(truncate(regular, intro, 9, sheet.right - sheet.left), sheet.left, sheet.y, regular, 9, MUTED)
  sheet.y -= 10
  sheet.rule(sheet.y, INK, 1.25)
}

/** On every page of the sheet: `label` on the left, "Certificate page i of n" (in the sheet's language) on the right. */
export function certificateFooters(sheet: Sheet, label: string, t: Translator = translator('en')): void {
  const { regular } = sheet.fonts
  const left = truncate(regular, label, 7.5, (sheet.right - sheet.left) * 0.75)
  sheet.pages.forEach((page, i) => {
    const right = t.text('cert.page', { page: i + 1, count: sheet.pages.length })
    page.drawLine({ start: { x: sheet.left, y: FOOTER_Y + 12 }, end: { x: sheet.right, y: FOOTER_Y + 12 }, color: RULE, thickness: 0.5 })
    regular.draw(page, left, { x: sheet.left, y: FOOTER_Y, size: 7.5, color: MUTED })
    regular.draw(page, right, { x: sheet.right - regular.widthOf(right, 7.5), y: FOOTER_Y, size: 7.5, color: MUTED })
  })
}

/** Appends the signing certificate (one page, or more for a long signer list or audit trail). */
export function appendCertificate(pdf: PDF, fonts: PdfFontSet, details: CertificateDetails, size: PageSize): void {
  const sheet = new Sheet(pdf, fonts, size)
  // Its fixed texts in the document's language; what people typed and the machine values stay as they are.
  const t = translator(details.language ?? 'en')
  certificateHeader(sheet, t.text('cert.title'), t.text('cert.intro', { org: details.orgName }))
  documentSection(sheet, details, t)
  signersSection(sheet, details.signers, t)
  auditSection(sheet, details, t)
  certificateFooters(sheet, t.text('cert.footer', { id: details.documentId }), t)
}

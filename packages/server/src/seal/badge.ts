import { renderAsync } from '@resvg/resvg-js'
import { liberationSansFonts, liberationSansPaths, truncate, wrap, type FontSet } from '../signing/signed-pdf-text.ts'
import { QUIET_ZONE, qrCode } from './badge-qr.ts'
import { sealMark, text, textWidth, tickDisc, type TextStyle } from './badge-svg.ts'

export interface BadgeFacts {
  /** The org's identity-verified legal name. */
  orgName: string
  title: string
  /** SHA-256 (hex) of the sealed file. */
  sha256: string
  /** The RFC 3161-proven seal time. */
  sealedAt: Date
  /** Who proved the time, e.g. "freetsa.org". */
  tsaName: string
  /** The public verification page, encoded in the QR code. */
  verifyUrl: string
}

const WIDTH = 640
const HEIGHT = 820
const SIDE = 48
const CONTENT = WIDTH - 2 * SIDE

/*
 * Colours: every text has at least 7:1 contrast on its background (WCAG AAA) but the labels on the
 * grey panel (6.8:1), so the badge stays legible when a web page shows it small.
 */
const NAVY = '#0b1f3a'
const GREEN = '#075a31'
const GREEN_TINT = '#e9f6ef'
const INK = '#111827'
const MUTED = '#4b5563'
const ON_NAVY = '#ffffff'
const ON_NAVY_MUTED = '#c7d2e0'
const PANEL = '#f3f5f7'
const RULE = '#d6dae0'
const SEAL_GREEN = '#1f9d5c'

const HEADER_HEIGHT = 88
/** The QR code is centred in this square; its quiet zone may reach MAX_MODULE × QUIET_ZONE beyond it. */
const QR_SLOT = { top: 184, size: 264 }
/** Modules larger than this would push the quiet zone into the headline (only very short URLs get there). */
const MAX_MODULE = 9

/* Text is measured with the same Liberation Sans that resvg draws with, shaped by HarfBuzz. */
let measuring: FontSet | undefined
const fonts = async (): Promise<FontSet> => (measuring ??= await liberationSansFonts())

/**
 * The Verified Badge: a 640×820 PNG. Deterministic: identical facts give byte-identical PNGs (the
 * bundled fonts only, no system fonts, no clock).
 */
export async function renderBadgePng(facts: BadgeFacts): Promise<Uint8Array> {
  const paths = liberationSansPaths()
  const image = await renderAsync(badgeSvg(facts, await fonts()), {
    font: { loadSystemFonts: false, fontFiles: [paths.regular, paths.bold], defaultFontFamily: 'Liberation Sans' },
    textRendering: 1,
    logLevel: 'off',
  })
  return image.asPng()
}

/** "YYYY-MM-DD HH:MM:SS UTC" */
function sealTime(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('sealedAt is not a valid date')
  const iso = date.toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`
}

/** The first 16 hex digits in groups of four: enough to compare by eye, short enough to read. */
function hashPrefix(sha256: string): string {
  const prefix = sha256.trim().toLowerCase().slice(0, 16)
  return (prefix.match(/.{1,4}/g) ?? []).join(' ') + '…'
}

function header(): string {
  const label: TextStyle = { size: 15, fill: ON_NAVY_MUTED, anchor: 'end', spacing: 1.5 }
  return [
    `<path d="M0 20a20 20 0 0 1 20-20h${WIDTH - 40}a20 20 0 0 1 20 20v${HEADER_HEIGHT - 20}h-${WIDTH}z" fill="${NAVY}"/>`,
    sealMark(SIDE + 18, HEADER_HEIGHT / 2, 20, SEAL_GREEN),
    text('Signet', SIDE + 46, HEADER_HEIGHT / 2 + 10, { size: 29, bold: true, fill: ON_NAVY }),
    text('VERIFIED BADGE', WIDTH - SIDE, HEADER_HEIGHT / 2 + 5, label),
  ].join('')
}

function headline(fontSet: FontSet): string {
  const style: TextStyle = { size: 32, bold: true, fill: GREEN, spacing: 1 }
  const words = 'VERIFIED & SEALED'
  const disc = 15
  const width = 2 * disc + 12 + textWidth(words, fontSet, style)
  const left = (WIDTH - width) / 2
  const baseline = 140
  return tickDisc(left + disc, baseline - 11.5, disc, GREEN) + text(words, left + 2 * disc + 12, baseline, style)
}

/** The code on whole pixels, drawn without anti-aliasing, so every module is a crisp square. */
function qr(url: string): string {
  const code = qrCode(url)
  const module = Math.min(MAX_MODULE, Math.floor(QR_SLOT.size / code.size))
  const side = module * code.size
  const left = Math.round((WIDTH - side) / 2)
  const top = QR_SLOT.top + Math.round((QR_SLOT.size - side) / 2)
  const d = code.runs.map((run) => `M${left + run.col * module} ${top + run.row * module}h${run.length * module}v${module}h-${run.length * module}z`).join('')
  return `<path d="${d}" fill="${INK}" shape-rendering="crispEdges"/>`
}

function identity({ bold, regular }: FontSet, facts: BadgeFacts, top: number): string {
  const org: TextStyle = { size: 26, bold: true, fill: INK, anchor: 'middle' }
  const title: TextStyle = { size: 19, fill: MUTED, anchor: 'middle' }
  const lines = wrap(regular, facts.title, title.size, CONTENT, 2)
  return [
    text(truncate(bold, facts.orgName, org.size, CONTENT), WIDTH / 2, top, org),
    ...lines.map((line, i) => text(line, WIDTH / 2, top + 30 + i * 24, title)),
  ].join('')
}

function factsPanel({ bold }: FontSet, badge: BadgeFacts, top: number): string {
  const padding = 20
  const rowHeight = 30
  const labelWidth = 116
  const rows: [string, string][] = [
    ['SHA-256', hashPrefix(badge.sha256)],
    ['Sealed', sealTime(badge.sealedAt)],
    ['Time-stamp', badge.tsaName],
  ]
  const height = rows.length * rowHeight + padding
  const label: TextStyle = { size: 15, fill: MUTED }
  const value: TextStyle = { size: 17, bold: true, fill: INK }
  const valueWidth = CONTENT - 2 * padding - labelWidth
  return [
    `<rect x="${SIDE}" y="${top}" width="${CONTENT}" height="${height}" rx="12" fill="${PANEL}" stroke="${RULE}"/>`,
    ...rows.map(([name, content], i) => {
      // Baselines sit a little below each row's middle, so capitals look centred in it.
      const baseline = top + padding / 2 + rowHeight * i + 21
      return text(name, SIDE + padding, baseline, label) + text(truncate(bold, content, value.size, valueWidth), SIDE + padding + labelWidth, baseline, value)
    }),
  ].join('')
}

/** What the seal proves, in a green band along the bottom edge: one sentence per line. */
function statement(): string {
  const band = 72
  return [
    `<path d="M0 ${HEIGHT - band}h${WIDTH}v${band - 20}a20 20 0 0 1-20 20h-${WIDTH - 40}a20 20 0 0 1-20-20z" fill="${GREEN_TINT}"/>`,
    text('Unaltered since sealed.', WIDTH / 2, HEIGHT - band + 30, { size: 16, bold: true, fill: GREEN, anchor: 'middle' }),
    text('File hash, identity, and timestamp cryptographically verified.', WIDTH / 2, HEIGHT - band + 52, { size: 15, fill: GREEN, anchor: 'middle' }),
  ].join('')
}

function badgeSvg(facts: BadgeFacts, fontSet: FontSet): string {
  const scan: TextStyle = { size: 14, fill: MUTED, anchor: 'middle' }
  const body = [
    `<rect width="${WIDTH}" height="${HEIGHT}" rx="20" fill="#ffffff"/>`,
    header(),
    headline(fontSet),
    qr(facts.verifyUrl),
    text('Scan to check this seal', WIDTH / 2, QR_SLOT.top + QR_SLOT.size + MAX_MODULE * QUIET_ZONE + 14, scan),
    identity(fontSet, facts, 542),
    factsPanel(fontSet, facts, 618),
    statement(),
    // The outline last, over the bands' edges.
    `<rect x="0.5" y="0.5" width="${WIDTH - 1}" height="${HEIGHT - 1}" rx="19.5" fill="none" stroke="${RULE}"/>`,
  ]
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="Liberation Sans">${body.join('')}</svg>`
}

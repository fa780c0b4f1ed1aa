import type { FontSet } from '../signing/signed-pdf-text.ts'

/*
 * Small SVG builders for the badge. Text is escaped here; the caller cleans it with the font first
 * (no control characters, '?' for glyphs Liberation Sans lacks), as truncate and wrap do.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char)

export interface TextStyle {
  size: number
  fill: string
  bold?: boolean
  anchor?: 'start' | 'middle' | 'end'
  /** Extra space between letters, in px. */
  spacing?: number
}

/** How wide `text` (already clean) is drawn in `style`, in px. */
export function textWidth(text: string, fonts: FontSet, style: TextStyle): number {
  const letters = [...text].length
  return (style.bold ? fonts.bold : fonts.regular).widthOf(text, style.size) + (style.spacing ?? 0) * Math.max(0, letters - 1)
}

/** A line of text with its baseline at y; `content` must already be clean (see Font.clean). */
export function text(content: string, x: number, y: number, style: TextStyle): string {
  const attributes = [
    `x="${x}"`,
    `y="${y}"`,
    `font-size="${style.size}"`,
    `font-weight="${style.bold ? 700 : 400}"`,
    `fill="${style.fill}"`,
    ...(style.anchor && style.anchor !== 'start' ? [`text-anchor="${style.anchor}"`] : []),
    ...(style.spacing ? [`letter-spacing="${style.spacing}"`] : []),
  ]
  // xml:space keeps runs of spaces (a title may have them) as they were measured.
  return `<text xml:space="preserve" ${attributes.join(' ')}>${escapeXml(content)}</text>`
}

function tick(cx: number, cy: number, r: number): string {
  const point = (dx: number, dy: number) => `${cx + dx * r} ${cy + dy * r}`
  return (
    `<path d="M${point(-0.45, 0.02)}L${point(-0.12, 0.33)}L${point(0.46, -0.3)}" fill="none" stroke="#ffffff" ` +
    `stroke-width="${0.2 * r}" stroke-linecap="round" stroke-linejoin="round"/>`
  )
}

/** A white tick on a filled disc: the "verified" mark. */
export function tickDisc(cx: number, cy: number, r: number, fill: string): string {
  return `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${fill}"/>${tick(cx, cy, r)}`
}

/** A white tick on a scalloped seal: Signet's mark. */
export function sealMark(cx: number, cy: number, r: number, fill: string): string {
  const points = 24
  const corners = Array.from({ length: points }, (_, i) => {
    const angle = (Math.PI * i) / (points / 2)
    const radius = i % 2 === 0 ? r : r * 0.88
    return `${(cx + radius * Math.sin(angle)).toFixed(2)} ${(cy - radius * Math.cos(angle)).toFixed(2)}`
  })
  return `<path d="M${corners.join('L')}z" fill="${fill}" stroke="${fill}" stroke-width="${0.08 * r}" stroke-linejoin="round"/>${tick(cx, cy, r * 0.85)}`
}

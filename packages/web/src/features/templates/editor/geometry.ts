/*
 * Template fields are stored as the server reads them (signing/signed-pdf.ts pageFrame): PDF points
 * measured from the top-left corner of the page as a viewer displays it — the CropBox clipped to the
 * MediaBox, turned by /Rotate. pdf.js's viewport at scale 1 is exactly that space (its `view` is the
 * same clipped box, its rotation the page's /Rotate, its origin the displayed top-left), so "field
 * space" here is the scale-1 viewport, and every conversion goes through pdf.js's own viewport math
 * (PDF user space in between) instead of a second hand-written rotation.
 */

/** A rectangle in field space: PDF points from the displayed page's top-left, y downwards. */
export interface PointRect {
  x: number
  y: number
  width: number
  height: number
}

/** A rectangle in CSS pixels from the top-left of the rendered page. */
export interface PixelRect {
  left: number
  top: number
  width: number
  height: number
}

/** The part of pdf.js's PageViewport used here (structural, so a real viewport fits). */
export interface ViewportMath {
  readonly width: number
  readonly height: number
  convertToPdfPoint(x: number, y: number): number[]
  convertToViewportRectangle(rect: number[]): number[]
}

/** A page's two viewports: field space (scale 1) and the one it is drawn at. */
export interface PageViewports {
  unit: ViewportMath
  screen: ViewportMath
}

/** The four numbers of a viewport rectangle, normalised (pdf.js returns them in either order; `+ 0` turns -0 into 0). */
function ordered([a = 0, b = 0, c = 0, d = 0]: number[]): [number, number, number, number] {
  return [Math.min(a, c) + 0, Math.min(b, d) + 0, Math.max(a, c) + 0, Math.max(b, d) + 0]
}

/** Corners of a viewport rectangle in PDF user space (the page's own coordinates). */
function toUserRect(viewport: ViewportMath, left: number, top: number, width: number, height: number): number[] {
  const [x0 = 0, y0 = 0] = viewport.convertToPdfPoint(left, top)
  const [x1 = 0, y1 = 0] = viewport.convertToPdfPoint(left + width, top + height)
  return [x0, y0, x1, y1]
}

/** A field's box in PDF user space [x0, y0, x1, y1] — where the signed-PDF renderer draws it. */
export function fieldToUserSpace(unit: ViewportMath, rect: PointRect): [number, number, number, number] {
  return ordered(toUserRect(unit, rect.x, rect.y, rect.width, rect.height))
}

/** Where a field (PDF points) appears on the drawn page (CSS pixels). */
export function pointsToPixels({ unit, screen }: PageViewports, rect: PointRect): PixelRect {
  const [left, top, right, bottom] = ordered(screen.convertToViewportRectangle(fieldToUserSpace(unit, rect)))
  return { left, top, width: right - left, height: bottom - top }
}

/** The field (PDF points) under a box drawn on the page (CSS pixels). */
export function pixelsToPoints({ unit, screen }: PageViewports, rect: PixelRect): PointRect {
  const [x, y, right, bottom] = ordered(unit.convertToViewportRectangle(toUserRect(screen, rect.left, rect.top, rect.width, rect.height)))
  return { x, y, width: right - x, height: bottom - y }
}

/** A distance on screen (CSS pixels) in PDF points: scale is uniform, so width ratios suffice. */
export function pixelsToPointDistance({ unit, screen }: PageViewports, pixels: number): number {
  return (pixels * unit.width) / screen.width
}

/** Points rounded to 0.01 pt: what the editor stores (the server keeps any number; this keeps JSON tidy). */
export const roundPoints = (value: number): number => Math.round(value * 100) / 100

/** The ink colour of drawn and typed marks. */
export const INK = '#10245e'

/** A bounding box in canvas pixels. */
export interface Box {
  minX: number
  minY: number
  maxX: number
  maxY: number
}

/** Crops `box` (plus a margin) out of `source` and scales it to fit 600×200: small PNGs (the server takes ≤ 256 KiB). */
export function croppedPng(source: HTMLCanvasElement, box: Box): string {
  const x = Math.max(0, Math.floor(box.minX - 12))
  const y = Math.max(0, Math.floor(box.minY - 12))
  const w = Math.min(source.width, Math.ceil(box.maxX + 12)) - x
  const h = Math.min(source.height, Math.ceil(box.maxY + 12)) - y
  const scale = Math.min(1, 600 / w, 200 / h)
  const out = Object.assign(document.createElement('canvas'), { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) })
  const c = context2d(out)
  c.imageSmoothingQuality = 'high'
  c.drawImage(source, x, y, w, h, 0, 0, out.width, out.height)
  return out.toDataURL('image/png')
}

/** `text` written in `font` (the script face, loaded by the caller) as a cropped PNG. */
export function typedPng(text: string, font: string): string {
  const canvas = document.createElement('canvas')
  let c = context2d(canvas)
  c.font = font
  const m = c.measureText(text)
  canvas.width = Math.ceil(m.actualBoundingBoxLeft + m.actualBoundingBoxRight) + 24
  canvas.height = Math.ceil(m.actualBoundingBoxAscent + m.actualBoundingBoxDescent) + 24
  c = context2d(canvas) // resizing reset the context's state
  Object.assign(c, { font, fillStyle: INK })
  c.fillText(text, 12 + m.actualBoundingBoxLeft, 12 + m.actualBoundingBoxAscent)
  return croppedPng(canvas, { minX: 0, minY: 0, maxX: canvas.width, maxY: canvas.height })
}

export function context2d(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const context = canvas.getContext('2d')
  if (!context) throw new Error('This browser cannot draw on a canvas')
  return context
}

import { context2d, INK, type Box } from './mark-image.ts'

/**
 * Drawing on the signature canvas. The canvas has a fixed 1200×400 bitmap; pointer positions
 * are scaled to it, so the drawing survives layout changes.
 */
export interface SignaturePad {
  canvas: HTMLCanvasElement
  /** The bounding box of the strokes (for cropping), null while nothing is drawn. */
  ink(): Box | null
  clear(): void
}

interface Point {
  x: number
  y: number
}

export function signaturePad(canvas: HTMLCanvasElement, onStrokeStart: () => void): SignaturePad {
  const ctx = context2d(canvas)
  let ink: Box | null = null
  let last: Point | null = null

  const toCanvas = (event: PointerEvent): Point => {
    const r = canvas.getBoundingClientRect()
    return { x: ((event.clientX - r.left) * canvas.width) / r.width, y: ((event.clientY - r.top) * canvas.height) / r.height }
  }
  const stroke = (from: Point, to: Point) => {
    Object.assign(ctx, { strokeStyle: INK, lineWidth: 6, lineCap: 'round', lineJoin: 'round' })
    ctx.beginPath()
    ctx.moveTo(from.x, from.y)
    ctx.lineTo(to.x, to.y)
    ctx.stroke()
    const { minX = to.x, minY = to.y, maxX = to.x, maxY = to.y } = ink ?? {}
    ink = { minX: Math.min(minX, to.x), minY: Math.min(minY, to.y), maxX: Math.max(maxX, to.x), maxY: Math.max(maxY, to.y) }
  }

  canvas.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return
    event.preventDefault()
    canvas.setPointerCapture(event.pointerId)
    last = toCanvas(event)
    stroke(last, last) // a tap leaves a dot
    onStrokeStart()
  })
  canvas.addEventListener('pointermove', (event) => {
    if (!last) return
    // Browsers batch fast moves into one event per frame; the coalesced ones keep curves smooth
    // (getCoalescedEvents is missing in older Safari).
    const batch = event.getCoalescedEvents?.() ?? []
    for (const e of batch.length ? batch : [event]) {
      const point = toCanvas(e)
      stroke(last, point)
      last = point
    }
  })
  for (const type of ['pointerup', 'pointercancel', 'lostpointercapture'] as const) canvas.addEventListener(type, () => (last = null))

  return {
    canvas,
    ink: () => ink,
    clear() {
      ctx.clearRect(0, 0, canvas.width, canvas.height)
      ink = null
    },
  }
}

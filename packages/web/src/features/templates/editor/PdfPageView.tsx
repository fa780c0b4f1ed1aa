import type { PDFPageProxy, RenderTask } from 'pdfjs-dist'
import { useEffect, useRef, type ReactNode } from 'react'
import type { PageViewports } from './geometry.ts'

export interface PdfPageViewProps {
  page: PDFPageProxy
  /** The width the page is drawn at, in CSS pixels. */
  width: number
  /** The page's overlay (field boxes), laid over the canvas at the same size. */
  children: (viewports: PageViewports) => ReactNode
  onRenderError: (error: unknown) => void
}

/** One PDF page drawn by pdf.js into a canvas (sharp at the device's pixel ratio), with an overlay on top. */
export function PdfPageView({ page, width, children, onRenderError }: PdfPageViewProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null)
  const unit = page.getViewport({ scale: 1 })
  const screen = page.getViewport({ scale: width / unit.width })

  useEffect(() => {
    const canvas = canvasRef.current
    if (!canvas || width <= 0) return
    const dpr = Math.min(window.devicePixelRatio || 1, 3) // beyond 3× costs memory, not sharpness
    const viewport = page.getViewport({ scale: (width / page.getViewport({ scale: 1 }).width) * dpr })
    canvas.width = Math.round(viewport.width)
    canvas.height = Math.round(viewport.height)
    let task: RenderTask | undefined = page.render({ canvas, viewport })
    task.promise.catch((error: unknown) => {
      if ((error as Error | undefined)?.name !== 'RenderingCancelledException') onRenderError(error)
    })
    return () => {
      task?.cancel()
      task = undefined
    }
  }, [page, width, onRenderError])

  return (
    <div className="relative bg-white shadow-sm ring-1 ring-line" style={{ width: screen.width, height: screen.height }}>
      <canvas ref={canvasRef} aria-hidden="true" className="absolute inset-0 h-full w-full" />
      {children({ unit, screen })}
    </div>
  )
}

import type * as PdfJs from 'pdfjs-dist/legacy/build/pdf.mjs'
import { byId } from './dom.ts'

/**
 * Draws the PDF's pages into the `.page` sections with pdf.js. pdf.js is not bundled: it is
 * served as its own versioned files (/sign-assets/pdf.min.mjs and its worker) and imported
 * from the URL the boot data names, on the signing page only.
 */
export interface PdfViewOptions {
  pdfjsUrl: string
  workerUrl: string
  documentUrl: string
  /** Once, after the first page is on screen. */
  onFirstPage: () => void
  onPageError: (page: string | undefined, error: unknown) => void
}

/** What a page shows (or is drawing): its size key and the render under way. */
interface PageState {
  key?: string | null
  task?: PdfJs.RenderTask
}

/** Loads the document (rejects when it cannot), then renders pages as they come near the viewport. */
export async function renderDocument({ pdfjsUrl, workerUrl, documentUrl, onFirstPage, onPageError }: PdfViewOptions): Promise<void> {
  const pdfjs = (await import(pdfjsUrl)) as typeof PdfJs
  pdfjs.GlobalWorkerOptions.workerSrc = workerUrl
  // No eval under our CSP; pdf.js would otherwise try `new Function` for font outlines.
  const pdf = await pdfjs.getDocument({ url: documentUrl, isEvalSupported: false }).promise
  const state = new Map<HTMLElement, PageState>()
  const near = new Set<HTMLElement>() // pages in or near the viewport; only those are (re-)rendered
  let viewed = false

  const render = async (el: HTMLElement): Promise<void> => {
    const dpr = Math.min(window.devicePixelRatio || 1, 3) // beyond 3× costs memory, not sharpness
    const key = `${el.clientWidth}@${dpr}`
    const s = state.get(el) ?? {}
    if (s.key === key) return
    s.task?.cancel()
    s.key = key
    state.set(el, s)
    const page = await pdf.getPage(Number(el.dataset.page))
    if (s.key !== key) return // a newer render of this page (another size) started meanwhile
    const viewport = page.getViewport({ scale: (el.clientWidth / page.getViewport({ scale: 1 }).width) * dpr })
    const canvas = Object.assign(document.createElement('canvas'), {
      className: 'page-canvas',
      width: Math.round(viewport.width),
      height: Math.round(viewport.height),
    })
    canvas.setAttribute('aria-hidden', 'true')
    s.task = page.render({ canvas, canvasContext: canvas.getContext('2d') ?? undefined, viewport })
    try {
      await s.task.promise
    } catch (error) {
      if ((error as Error | undefined)?.name === 'RenderingCancelledException') return
      s.key = null
      throw error
    }
    // Swap only when done, so a resize never shows a blank page.
    const old = el.querySelector('.page-canvas')
    if (old) old.replaceWith(canvas)
    else el.prepend(canvas)
    el.classList.add('is-rendered')
    if (!viewed) {
      viewed = true
      onFirstPage()
    }
  }
  const renderSafely = (el: HTMLElement) => render(el).catch((error: unknown) => onPageError(el.dataset.page, error))

  // Long documents: render pages as they approach the viewport instead of all at once.
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const el = entry.target as HTMLElement
        if (entry.isIntersecting) {
          near.add(el)
          void renderSafely(el)
        } else near.delete(el)
      }
    },
    { rootMargin: '100% 0px' },
  )
  document.querySelectorAll<HTMLElement>('.page').forEach((el) => observer.observe(el))
  let timer: ReturnType<typeof setTimeout> | undefined
  new ResizeObserver(() => {
    clearTimeout(timer)
    timer = setTimeout(() => near.forEach((el) => void renderSafely(el)), 150)
  }).observe(byId('document'))
}

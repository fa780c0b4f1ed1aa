import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist'
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react'
import { Button, ErrorMessage, Field, Select } from '../../../components/index.ts'
import { cn } from '../../../lib/cn.ts'
import {
  editorReducer,
  emptyEditor,
  fieldTypeName,
  FIELD_TYPES,
  type EditorAction,
  type EditorState,
  type FieldType,
  type PageSize,
  type TemplateField,
} from './editor-state.ts'
import { FieldPanel, roleOptions } from './FieldPanel.tsx'
import type { PageFinder, PageTarget } from './FieldBox.tsx'
import type { PageViewports } from './geometry.ts'
import { PageOverlay } from './PageOverlay.tsx'
import { PdfPageView } from './PdfPageView.tsx'
import { revealField } from './reveal-field.ts'
import { roleColour } from './role-colours.ts'
import { roleLabel, type RoleNames } from '../role-labels.ts'

export interface TemplateEditorProps {
  pdf: PDFDocumentProxy
  /** Page sizes as the server measured them (GET /templates/{id} pages). */
  serverPages: PageSize[]
  fields: TemplateField[]
  /** The template's names for its roles, as saved now: a save in the Roles card shows at once. */
  roleNames?: RoleNames
  /** Renders the save bar: it gets the state (fields, unsaved changes) and the dispatcher. */
  children: (state: EditorState, dispatch: (action: EditorAction) => void) => React.ReactNode
}

/** The widest a page is drawn; narrower screens draw it at their width. */
const MAX_PAGE_WIDTH = 820

/** Every page of the template with its fields, a toolbar to place new ones and a panel for the selected one. */
export function TemplateEditor({ pdf, serverPages, fields, roleNames = [], children }: TemplateEditorProps) {
  const [pages, setPages] = useState<PDFPageProxy[] | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [state, dispatch] = useReducer(editorReducer, emptyEditor)
  const [tool, setTool] = useState<FieldType | null>(null)
  const [role, setRole] = useState(0)
  const [columnWidth, setColumnWidth] = useState(0)
  const column = useRef<HTMLDivElement>(null)
  const overlays = useRef(new Map<number, { element: HTMLElement; viewports: PageViewports }>())

  useEffect(() => {
    let cancelled = false
    Promise.all(Array.from({ length: pdf.numPages }, (_, i) => pdf.getPage(i + 1)))
      .then((loaded) => {
        if (cancelled) return
        setPages(loaded)
        dispatch({ type: 'load', pages: loaded.map((page, i) => fieldSpace(page, serverPages[i])), fields })
      })
      .catch((error: unknown) => !cancelled && setLoadError(error))
    return () => {
      cancelled = true
    }
    // Loaded once per PDF: later `fields` props are the editor's own saves coming back.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- fields and serverPages are read once, at load
  }, [pdf])

  useLayoutEffect(() => {
    const element = column.current
    if (!element) return
    const observer = new ResizeObserver(([entry]) => entry && setColumnWidth(Math.floor(entry.contentRect.width)))
    observer.observe(element)
    return () => observer.disconnect()
  }, [pages])

  // Focus follows selection (and a field dragged onto another page, whose box is then a new element),
  // so a field placed by pointer can be nudged with the keyboard at once.
  const selectedPage = state.fields.find((f) => f.key === state.selected)?.page
  useEffect(() => {
    if (!state.selected) return
    const box = document.querySelector<HTMLElement>(`[data-field-key="${state.selected}"]`)
    if (box && document.activeElement !== box && !isTyping(document.activeElement)) box.focus({ preventScroll: true })
  }, [state.selected, selectedPage])

  // Undo and redo from anywhere in the editor but a text box.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== 'z' || isTyping(document.activeElement)) return
      event.preventDefault()
      dispatch({ type: event.shiftKey ? 'redo' : 'undo' })
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [])

  const register = useCallback((page: number, element: HTMLElement | null, viewports: PageViewports) => {
    if (element) overlays.current.set(page, { element, viewports })
    else overlays.current.delete(page)
  }, [])

  const finder: PageFinder = useMemo(
    () => ({
      at(x, y) {
        for (const [page, { element, viewports }] of overlays.current) {
          const rect = element.getBoundingClientRect()
          if (x >= rect.left && x <= rect.right && y >= rect.top && y <= rect.bottom) return { page, element, viewports }
        }
        return null
      },
      get(page): PageTarget | null {
        const found = overlays.current.get(page)
        return found ? { page, ...found } : null
      },
    }),
    [],
  )

  const onRenderError = useCallback((error: unknown) => setLoadError(error), [])

  if (loadError) return <ErrorMessage title="The PDF could not be shown" error={loadError} />
  if (!pages) return <p className="text-sm text-muted">Opening the PDF…</p>

  const widest = Math.max(...pages.map((page) => page.getViewport({ scale: 1 }).width))
  const scale = columnWidth > 0 ? Math.min(columnWidth, MAX_PAGE_WIDTH) / widest : 0
  const selected = state.fields.find((f) => f.key === state.selected)

  return (
    <div className="flex flex-col gap-4 pb-32 lg:flex-row lg:items-start lg:pb-0">
      <div className="min-w-0 flex-1">
        <div className="z-20 mb-3 flex lg:sticky lg:top-0 flex-wrap items-end gap-2 rounded-lg border border-line bg-white p-3 shadow-sm">
          <div role="group" aria-label="Field to place" className="flex flex-wrap gap-1">
            {FIELD_TYPES.map((type) => (
              <Button
                key={type}
                size="sm"
                variant={tool === type ? 'primary' : 'secondary'}
                aria-pressed={tool === type}
                onClick={() => setTool(tool === type ? null : type)}
              >
                {fieldTypeName(type)}
              </Button>
            ))}
          </div>
          <Field label="For" className="w-48">
            <Select value={String(role)} onValueChange={(value) => setRole(Number(value))} options={roleOptions(roleNames)} />
          </Field>
          <span
            aria-hidden="true"
            className="mb-2 size-4 rounded-full border-2"
            style={{ borderColor: roleColour(role).border, background: roleColour(role).fill }}
          />
          <p className="w-full text-sm text-muted" aria-live="polite">
            {tool
              ? `Click or drag on a page to place a ${fieldTypeName(tool).toLowerCase()} field for ${roleLabel(roleNames, role)}.`
              : 'Choose a field type, then click or drag on a page. Select a field to move it, resize it from its corner, or edit it in the panel.'}
          </p>
        </div>
        <p id="field-box-help" className="sr-only">
          Arrow keys move the field by 1 point, with Shift by 10 points; Alt with arrow keys resizes it; Delete removes it.
        </p>
        <div ref={column} className="flex flex-col items-center gap-6 overflow-x-auto pb-6">
          {scale > 0 &&
            pages.map((page, i) => {
              const number = i + 1
              return (
                <section key={number} aria-label={`Page ${number} of ${pages.length}`} className="flex flex-col items-center gap-1">
                  <PdfPageView page={page} width={page.getViewport({ scale: 1 }).width * scale} onRenderError={onRenderError}>
                    {(viewports) => (
                      <PageOverlay
                        page={number}
                        viewports={viewports}
                        fields={state.fields.filter((f) => f.page === number)}
                        roleNames={roleNames}
                        selected={state.selected}
                        tool={tool}
                        role={role}
                        dispatch={dispatch}
                        pages={finder}
                        onPlaced={() => setTool(null)}
                        register={register}
                      />
                    )}
                  </PdfPageView>
                  <span className="text-xs text-muted">
                    Page {number} of {pages.length}
                  </span>
                </section>
              )
            })}
        </div>
      </div>
      <aside aria-label="Field properties" className="w-full shrink-0 lg:sticky lg:top-4 lg:w-72">
        <div className="flex flex-col gap-4 rounded-lg border border-line bg-white p-4">
          {/* On a phone the save bar stays at the foot of the screen; the panel itself is below the pages. */}
          <div className="fixed inset-x-0 bottom-0 z-30 border-t border-line bg-white p-3 shadow-lg lg:static lg:border-0 lg:p-0 lg:shadow-none">
            {children(state, dispatch)}
          </div>
          <h2 className="text-base font-semibold">{selected ? `${fieldTypeName(selected.type)} field` : 'Field'}</h2>
          {selected ? (
            <FieldPanel field={selected} roleNames={roleNames} pages={state.pages} dispatch={dispatch} />
          ) : (
            <p className="text-sm text-muted">{state.fields.length === 0 ? 'No fields yet. Place one on a page.' : 'Select a field to edit it.'}</p>
          )}
          <FieldList state={state} roleNames={roleNames} dispatch={dispatch} />
        </div>
      </aside>
    </div>
  )
}

/** Every field, listed: a way to reach a field on a far page (and an overview for screen readers). */
function FieldList({ state, roleNames, dispatch }: { state: EditorState; roleNames: RoleNames; dispatch: (action: EditorAction) => void }) {
  if (state.fields.length === 0) return null
  return (
    <details>
      <summary className="cursor-pointer text-sm font-medium">All fields ({state.fields.length})</summary>
      <ul className="mt-2 flex flex-col gap-1 text-sm">
        {state.fields.map((f) => (
          <li key={f.key}>
            <button
              type="button"
              className={cn('w-full rounded px-2 py-1 text-left hover:bg-gray-100', f.key === state.selected && 'bg-brand-50')}
              onClick={() => revealField(dispatch, f.key)}
            >
              <span className="mr-2 inline-block size-2.5 rounded-full" style={{ background: roleColour(f.role).border }} aria-hidden="true" />
              {fieldTypeName(f.type)}, {roleLabel(roleNames, f.role)}, page {f.page}
            </button>
          </li>
        ))}
      </ul>
    </details>
  )
}

/**
 * A page's field space from pdf.js (the displayed page at scale 1), never larger than the server's
 * measure of it, so a field the editor keeps on the page is one the server accepts.
 */
function fieldSpace(page: PDFPageProxy, server: PageSize | undefined): PageSize {
  const { width, height } = page.getViewport({ scale: 1 })
  return server ? { width: Math.min(width, server.width), height: Math.min(height, server.height) } : { width, height }
}

const isTyping = (element: Element | null): boolean =>
  element instanceof HTMLInputElement ||
  element instanceof HTMLTextAreaElement ||
  element instanceof HTMLSelectElement ||
  (element instanceof HTMLElement && element.isContentEditable)

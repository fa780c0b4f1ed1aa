import { useRef, useState, type Dispatch, type PointerEvent } from 'react'
import { cn } from '../../../lib/cn.ts'
import { DEFAULT_FIELD_SIZE, fieldTypeName, type EditorAction, type EditorField, type FieldType } from './editor-state.ts'
import { FieldBox, type PageFinder } from './FieldBox.tsx'
import { pixelsToPoints, type PageViewports, type PixelRect } from './geometry.ts'
import { roleColour } from './role-colours.ts'
import type { RoleNames } from '../role-labels.ts'

interface PageOverlayProps {
  page: number
  viewports: PageViewports
  fields: EditorField[]
  roleNames: RoleNames
  selected: string | null
  /** The field type a click or drag on the page places; null: clicks select. */
  tool: FieldType | null
  role: number
  dispatch: Dispatch<EditorAction>
  pages: PageFinder
  onPlaced: () => void
  register: (page: number, element: HTMLElement | null, viewports: PageViewports) => void
}

/** Below this many pixels a press on the page is a click: the field gets its type's default size. */
const DRAW_THRESHOLD = 6

/** The layer over one page: its field boxes, and placing a new field by click or drag. */
export function PageOverlay({ page, viewports, fields, roleNames, selected, tool, role, dispatch, pages, onPlaced, register }: PageOverlayProps) {
  const start = useRef<{ x: number; y: number; pointerId: number } | null>(null)
  const [draft, setDraft] = useState<PixelRect | null>(null)

  const local = (event: PointerEvent<HTMLElement>) => {
    const rect = event.currentTarget.getBoundingClientRect()
    return { x: event.clientX - rect.left, y: event.clientY - rect.top }
  }

  const onPointerDown = (event: PointerEvent<HTMLElement>) => {
    if (event.button !== 0 || event.target !== event.currentTarget) return
    if (!tool) {
      dispatch({ type: 'select', key: null })
      return
    }
    event.preventDefault()
    event.currentTarget.setPointerCapture(event.pointerId)
    start.current = { ...local(event), pointerId: event.pointerId }
  }

  const onPointerMove = (event: PointerEvent<HTMLElement>) => {
    const from = start.current
    if (!from || from.pointerId !== event.pointerId) return
    const to = local(event)
    setDraft({ left: Math.min(from.x, to.x), top: Math.min(from.y, to.y), width: Math.abs(to.x - from.x), height: Math.abs(to.y - from.y) })
  }

  const onPointerUp = (event: PointerEvent<HTMLElement>) => {
    const from = start.current
    if (!from || from.pointerId !== event.pointerId || !tool) return
    start.current = null
    setDraft(null)
    const to = local(event)
    const dragged = Math.abs(to.x - from.x) >= DRAW_THRESHOLD && Math.abs(to.y - from.y) >= DRAW_THRESHOLD
    const drawn: PixelRect = dragged
      ? { left: Math.min(from.x, to.x), top: Math.min(from.y, to.y), width: Math.abs(to.x - from.x), height: Math.abs(to.y - from.y) }
      : { left: from.x, top: from.y, width: 1, height: 1 }
    const at = pixelsToPoints(viewports, drawn)
    const size = dragged ? { width: at.width, height: at.height } : DEFAULT_FIELD_SIZE[tool]
    dispatch({ type: 'add', field: { type: tool, role, page, x: at.x, y: at.y, ...size } })
    onPlaced()
  }

  const onPointerCancel = () => {
    start.current = null
    setDraft(null)
  }

  return (
    <div
      ref={(element) => register(page, element, viewports)}
      data-page-overlay={page}
      className={cn('absolute inset-0 touch-pan-y', tool && 'cursor-crosshair')}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerCancel}
    >
      {fields.map((field) => (
        <FieldBox
          key={field.key}
          field={field}
          roleNames={roleNames}
          viewports={viewports}
          selected={field.key === selected}
          dispatch={dispatch}
          pages={pages}
        />
      ))}
      {draft && tool && (
        <div
          aria-hidden="true"
          className="pointer-events-none absolute rounded-sm border-2 border-dashed"
          style={{ ...draft, borderColor: roleColour(role).border, background: roleColour(role).fill }}
          title={fieldTypeName(tool)}
        />
      )}
    </div>
  )
}

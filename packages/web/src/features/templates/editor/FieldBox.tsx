import type { Dispatch, KeyboardEvent, PointerEvent } from 'react'
import { cn } from '../../../lib/cn.ts'
import { fieldAccessibleName, fieldTypeName, type EditorAction, type EditorField } from './editor-state.ts'
import { pixelsToPointDistance, pixelsToPoints, pointsToPixels, type PageViewports } from './geometry.ts'
import { roleColour } from './role-colours.ts'
import { shortRoleLabel, type RoleNames } from '../role-labels.ts'

/** A page's overlay element and viewports, to turn screen points into field points. */
export interface PageTarget {
  page: number
  element: HTMLElement
  viewports: PageViewports
}

/** Finds pages on screen: the one under a point (a field may be dragged onto another page), or by number. */
export interface PageFinder {
  at(clientX: number, clientY: number): PageTarget | null
  get(page: number): PageTarget | null
}

interface FieldBoxProps {
  field: EditorField
  roleNames: RoleNames
  viewports: PageViewports
  selected: boolean
  dispatch: Dispatch<EditorAction>
  pages: PageFinder
}

/** Pixels a pointer must travel before a press on a field becomes a drag (a click only selects). */
const DRAG_THRESHOLD = 3

/**
 * A placed field: an HTML box over the page, focusable, moved by dragging it or with the arrow
 * keys (Shift: 10 pt), resized by its corner handle or Alt+arrows, deleted with Delete.
 */
export function FieldBox({ field, roleNames, viewports, selected, dispatch, pages }: FieldBoxProps) {
  const box = pointsToPixels(viewports, field)
  const colour = roleColour(field.role)

  /*
   * A drag follows the pointer on window, not on this element: dropped on another page, the field
   * is drawn by that page's overlay and this element goes away mid-gesture.
   */
  const begin = (kind: 'move' | 'resize') => (event: PointerEvent<HTMLElement>) => {
    if (event.button !== 0) return
    event.stopPropagation()
    event.preventDefault()
    const element = event.currentTarget.closest<HTMLElement>('[data-field-key]')
    if (!element) return
    element.focus({ preventScroll: true })
    dispatch({ type: 'select', key: field.key })
    const rect = element.getBoundingClientRect()
    const { pointerId, clientX: startX, clientY: startY } = event
    const grabX = startX - rect.left
    const grabY = startY - rect.top
    const start = { ...field }
    let started = false

    const onMove = (move: globalThis.PointerEvent) => {
      if (move.pointerId !== pointerId) return
      if (!started && Math.hypot(move.clientX - startX, move.clientY - startY) < DRAG_THRESHOLD) return
      const transient = started // the first step of a gesture records the undo point
      started = true
      if (kind === 'move') {
        const target = pages.at(move.clientX, move.clientY) ?? pages.get(start.page)
        if (!target) return
        const origin = target.element.getBoundingClientRect()
        const at = pixelsToPoints(target.viewports, { left: move.clientX - origin.left - grabX, top: move.clientY - origin.top - grabY, width: 1, height: 1 })
        dispatch({ type: 'place', key: start.key, page: target.page, rect: { x: at.x, y: at.y, width: start.width, height: start.height }, transient })
      } else {
        const target = pages.get(start.page)
        if (!target) return
        const origin = target.element.getBoundingClientRect()
        const topLeft = pointsToPixels(target.viewports, start)
        const width = pixelsToPointDistance(target.viewports, move.clientX - origin.left - topLeft.left)
        const height = pixelsToPointDistance(target.viewports, move.clientY - origin.top - topLeft.top)
        dispatch({ type: 'resize', key: start.key, width, height, transient })
      }
    }
    const onEnd = (end: globalThis.PointerEvent) => {
      if (end.pointerId !== pointerId) return
      window.removeEventListener('pointermove', onMove)
      window.removeEventListener('pointerup', onEnd)
      window.removeEventListener('pointercancel', onEnd)
    }
    window.addEventListener('pointermove', onMove)
    window.addEventListener('pointerup', onEnd)
    window.addEventListener('pointercancel', onEnd)
  }

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    const step = event.shiftKey ? 10 : 1
    const arrows: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }
    const arrow = arrows[event.key]
    if (arrow) {
      event.preventDefault()
      const [dx, dy] = arrow
      if (event.altKey) dispatch({ type: 'resize', key: field.key, width: field.width + dx, height: field.height + dy })
      else dispatch({ type: 'nudge', key: field.key, dx, dy })
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault()
      dispatch({ type: 'delete', key: field.key })
    } else if (event.key === 'Escape') {
      dispatch({ type: 'select', key: null })
    }
  }

  return (
    <div
      role="button"
      tabIndex={0}
      aria-label={fieldAccessibleName(field, roleNames)}
      aria-pressed={selected}
      aria-describedby="field-box-help"
      data-field-key={field.key}
      data-type={field.type}
      data-role={field.role}
      className={cn(
        'absolute flex touch-none items-center justify-center overflow-visible rounded-sm border-2 text-xs font-semibold select-none',
        'cursor-move focus-visible:outline-3 focus-visible:outline-offset-2',
        selected && 'z-10 shadow-lg',
      )}
      style={{
        left: box.left,
        top: box.top,
        width: box.width,
        height: box.height,
        borderColor: colour.border,
        background: colour.fill,
        color: colour.border,
        borderStyle: field.required ? 'solid' : 'dashed',
        outlineColor: colour.border,
      }}
      onPointerDown={begin('move')}
      onKeyDown={onKeyDown}
      onFocus={() => dispatch({ type: 'select', key: field.key })}
    >
      {/* The role keeps up to half the box, so neither a long label nor a long role name hides the other. */}
      <span className="pointer-events-none flex w-full min-w-0 justify-center gap-1 px-1" aria-hidden="true">
        <span className="truncate">{field.label ?? fieldTypeName(field.type)}</span>
        <span>·</span>
        <span className="max-w-1/2 shrink-0 truncate">{shortRoleLabel(roleNames, field.role)}</span>
      </span>
      {selected && (
        <span
          aria-hidden="true"
          data-resize-handle
          className="absolute -right-3 -bottom-3 size-6 cursor-nwse-resize touch-none rounded-full border-2 border-white shadow"
          style={{ background: colour.border }}
          onPointerDown={begin('resize')}
        />
      )}
    </div>
  )
}

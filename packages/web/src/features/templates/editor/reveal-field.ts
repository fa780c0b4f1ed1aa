import type { EditorAction } from './editor-state.ts'

/** Selects a field and scrolls its box into view: it may be on a page far from the one in sight. */
export function revealField(dispatch: (action: EditorAction) => void, key: string): void {
  dispatch({ type: 'select', key })
  document.querySelector(`[data-field-key="${key}"]`)?.scrollIntoView({ block: 'center' })
}

import { lazy } from 'react'

export { templateEditorLoads, templatesLoads } from './queries.ts'
export { TemplatesPage } from './TemplatesPage.tsx'

/** The field editor is its own chunk: the rest of the dashboard never loads it (nor pdf.js). */
export const TemplateEditorPage = lazy(() => import('./TemplateEditorPage.tsx'))

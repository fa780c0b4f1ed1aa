export { DocumentDetailPage } from './DocumentDetailPage.tsx'
export { DocumentsPage } from './DocumentsPage.tsx'

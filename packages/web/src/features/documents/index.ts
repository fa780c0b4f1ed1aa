export { DocumentDetailPage } from './DocumentDetailPage.tsx'
export { DocumentsPage } from './DocumentsPage.tsx'
export { documentCountsQuery, documentListQuery, documentQuery } from './queries.ts'

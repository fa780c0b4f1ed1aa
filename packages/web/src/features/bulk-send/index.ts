export { BulkSendPage } from './BulkSendPage.tsx'
export { bulkSendLoads } from './queries.ts'

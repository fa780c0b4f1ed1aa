export { BulkSendPage } from './BulkSendPage.tsx'

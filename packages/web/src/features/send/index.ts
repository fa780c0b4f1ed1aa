export { sendLoads } from './queries.ts'
export { SendPage } from './SendPage.tsx'

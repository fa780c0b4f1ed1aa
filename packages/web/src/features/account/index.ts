export { AccountPage } from './AccountPage.tsx'
export { accountLoads } from './queries.ts'

export { ConsentPage } from './ConsentPage.tsx'
export { consentLoads } from './queries.ts'

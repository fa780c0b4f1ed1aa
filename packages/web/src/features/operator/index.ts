export { OperatorPage } from './OperatorPage.tsx'
export { operatorLoads } from './queries.ts'

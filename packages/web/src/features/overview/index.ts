export { OverviewPage } from './OverviewPage.tsx'
export { overviewLoads } from './queries.ts'

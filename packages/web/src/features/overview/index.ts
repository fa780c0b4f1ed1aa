export { OverviewPage } from './OverviewPage.tsx'

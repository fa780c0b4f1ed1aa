export { OperatorPage } from './OperatorPage.tsx'

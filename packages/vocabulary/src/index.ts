export { partyLabel } from './party-label.ts'

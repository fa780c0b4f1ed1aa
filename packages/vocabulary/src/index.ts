export { AUDIT_EVENT_LABELS, AUDIT_EVENT_TYPES, type AuditEventType } from './audit-events.ts'
export { AUTH_METHOD_LABELS, AUTH_METHODS, type AuthMethod } from './auth-methods.ts'
export { partyLabel } from './party-label.ts'
export { signingDateText } from './signing-date.ts'

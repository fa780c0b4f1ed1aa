import type { Services } from '../services.ts'

/** What the account code needs of the services, who asks, and addresses as stored: shared by every account module. */

export type AccountServices = Pick<Services, 'db' | 'clock' | 'config' | 'mail' | 'logger'>

/** Where a request comes from, for the session list, the security log and the per-address limits. */
export interface Client {
  ip: string
  userAgent: string | null
}

/** E-mail addresses are stored and compared lower-cased, without surrounding spaces. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

import type { Services } from '../../services.ts'

export type TwoFactorServices = Pick<Services, 'db' | 'clock' | 'config' | 'mail' | 'logger' | 'secrets'>

/** The authenticated context a user's TOTP secret is sealed under: it opens for that user only. */
export const totpContext = (userId: string): string => `totp:${userId}`

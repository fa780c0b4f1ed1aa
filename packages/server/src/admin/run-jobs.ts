import type { Clock } from '../adapters/clock.ts'
import { sendExpiryWarnings } from '../documents/expiry-notices.ts'
import { sendDueReminders } from '../documents/reminders.ts'
import { invalid } from '../errors.ts'
import { parseUtcDateTime } from '../lib/utc-date-time.ts'
import type { Services } from '../services.ts'
import { expireDueDocuments } from '../signing/expiry.ts'

/**
 * `admin jobs run [--now <time>]`: the sweeps the background loops run (reminders, expiry warnings, expiry), once, at a chosen
 * instant. Tests and drills drive time with it; each sweep is safe beside the loops of running
 * servers (they lock what they change with SKIP LOCKED).
 */
export async function runJobsAt(services: Pick<Services, 'db' | 'clock' | 'config'> & Partial<Pick<Services, 'mail'>>, at: string | undefined) {
  const now = at === undefined ? services.clock.now() : parseUtcDateTime(at)
  if (!now) throw invalid('--now must be a UTC date-time such as 2030-01-31T17:00:00Z.', { field: '/now' })
  const clock: Clock = { now: () => now }
  const remindersSent = await sendDueReminders({ db: services.db, clock, config: services.config })
  const expiryWarnings = await sendExpiryWarnings({ db: services.db, clock, config: services.config })
  const documentsExpired = await expireDueDocuments(services.db, clock, services.config.publicUrl)
  services.mail?.kick()
  return { at: now.toISOString(), reminders_sent: remindersSent, expiry_warnings_sent: expiryWarnings, documents_expired: documentsExpired }
}

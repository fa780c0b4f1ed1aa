import type { Config } from '../config.ts'
import type { Db } from '../db/client.ts'
import type { Clock } from '../adapters/clock.ts'
import { startBackgroundLoop, type BackgroundLoop } from '../lib/background-loop.ts'
import type { Logger } from '../lib/logger.ts'

/** Delivers due webhook deliveries. PLACEHOLDER until webhooks land. */
export function startWebhookDispatcher(deps: { db: Db; clock: Clock; logger: Logger; config: Config }): BackgroundLoop {
  return startBackgroundLoop({ name: 'webhook dispatcher', pollMs: deps.config.jobPollMs, logger: deps.logger, work: async () => undefined })
}

import type { BlobStore } from './adapters/blob-store.ts'
import { databaseBlobStore } from './adapters/blob-store.ts'
import type { Clock } from './adapters/clock.ts'
import { systemClock } from './adapters/clock.ts'
import type { Mailer } from './adapters/mailer.ts'
import { logMailer, smtpMailer } from './adapters/mailer.ts'
import { PRINCIPALS_CHANGED_CHANNEL, PrincipalCache } from './api-keys/principal-cache.ts'
import type { Config } from './config.ts'
import type { Database, Db } from './db/client.ts'
import type { Logger } from './lib/logger.ts'
import { startBackgroundLoop, type BackgroundLoop } from './lib/background-loop.ts'
import type { MailDispatcher } from './mail/outbox.ts'
import { startMailDispatcher } from './mail/outbox.ts'
import { expireDueDocuments } from './signing/expiry.ts'
import { startSignedPdfRenderer } from './signing/signed-pdf-job.ts'
import { startWebhookDispatcher } from './webhooks/dispatcher.ts'

/** Everything domain code may touch, passed explicitly; each side effect is an adapter tests can swap. */
export interface Services {
  config: Config
  db: Db
  clock: Clock
  blobs: BlobStore
  mail: MailDispatcher
  logger: Logger
  principals: PrincipalCache
  /** Renders completed documents' signed PDFs; kick it after a completion. */
  signedPdfs: BackgroundLoop
  /** Delivers queued webhook deliveries; kick it after a commit that queued some. */
  webhooks: BackgroundLoop
}

export interface AdapterOverrides {
  clock?: Clock
  mailer?: Mailer
}

export interface RunningServices extends Services {
  close(): Promise<void>
}

export async function createServices(
  config: Config,
  database: Database,
  logger: Logger,
  overrides: AdapterOverrides = {},
): Promise<RunningServices> {
  const clock = overrides.clock ?? systemClock
  const principals = new PrincipalCache(() => clock.now().getTime())
  await database.subscribe(
    PRINCIPALS_CHANGED_CHANNEL,
    () => principals.clear(),
    (live) => principals.setLive(live),
  )
  const mailer = overrides.mailer ?? (config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom) : logMailer(logger))
  const blobs = databaseBlobStore(database.db)
  const mail = startMailDispatcher({ db: database.db, blobs, mailer, clock, logger, pollMs: config.mailPollMs })
  const signedPdfs = startSignedPdfRenderer({ db: database.db, blobs, clock, logger, mail, pollMs: config.jobPollMs })
  const expiry = startBackgroundLoop({
    name: 'document expiry',
    pollMs: config.jobPollMs,
    logger,
    work: async () => void (await expireDueDocuments(database.db, clock)),
  })
  const webhooks = startWebhookDispatcher({ db: database.db, clock, logger, config })
  return {
    config,
    db: database.db,
    clock,
    blobs,
    mail,
    logger,
    principals,
    signedPdfs,
    webhooks,
    close: async () => {
      await Promise.all([expiry.stop(), signedPdfs.stop(), webhooks.stop()])
      await mail.stop()
      await database.close()
    },
  }
}

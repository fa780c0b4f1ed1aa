import { blobStoreFor } from './adapters/blob-store.ts'
import { openS3BlobStore, UNREFERENCED_SWEEP_MS } from './adapters/s3-blob-store.ts'
import type { Clock } from './adapters/clock.ts'
import { systemClock } from './adapters/clock.ts'
import { documentCipherFor, instanceKeyFor, secretSealerFor } from './adapters/document-cipher.ts'
import { manualIdentityVerifier, type IdentityVerifier } from './adapters/identity-verifier.ts'
import { guardedMetadataFetcher, type MetadataFetcher } from './adapters/metadata-fetcher.ts'
import type { Mailer } from './adapters/mailer.ts'
import { logMailer, smtpMailer } from './adapters/mailer.ts'
import { flushKeyUses, KEY_USE_FLUSH_MS } from './api-keys/key-uses.ts'
import { PRINCIPALS_CHANGED_CHANNEL, PrincipalCache } from './api-keys/principal-cache.ts'
import { sendExpiryWarnings } from './documents/expiry-notices.ts'
import { sendDueReminders } from './documents/reminders.ts'
import type { Config } from './config.ts'
import type { Database } from './db/client.ts'
import { startFinalPdfJob } from './documents/final-pdf-job.ts'
import { closeLostStreamSessions } from './events/stream-sessions.ts'
import { deleteExpiredIdempotentRequests } from './idempotency/idempotent-requests.ts'
import type { Logger } from './lib/logger.ts'
import { startBackgroundLoop } from './lib/background-loop.ts'
import { startMailDispatcher } from './mail/outbox.ts'
import { noMetrics } from './metrics/metrics.ts'
import { createPrometheusMetrics, poolCountsOf } from './metrics/prometheus.ts'
import { deleteExpiredOAuthRecords, OAUTH_SWEEP_MS } from './oauth/storage-adapter.ts'
import { PdfWork } from './pdf-work/pdf-work.ts'
import { loadSealer } from './seal/instance-seal.ts'
import type { NamedTimestampAuthority } from './seal/tsa-chain.ts'
import type { Services } from './services.ts'
import { expireDueDocuments } from './signing/expiry.ts'
import { startWebhookDispatcher } from './webhooks/dispatcher.ts'

// The composition root: the one place that builds Services (server.ts, the CLI's offline mode, tests and bench call it).
export interface AdapterOverrides {
  clock?: Clock
  mailer?: Mailer
  /** Replaces the configured TSA_URL authorities. */
  timestampAuthority?: NamedTimestampAuthority
  identityVerifier?: IdentityVerifier
  fetchClientMetadata?: MetadataFetcher
}

export interface RunningServices extends Services {
  close(): Promise<void>
}

export async function createServices(config: Config, database: Database, logger: Logger, overrides: AdapterOverrides = {}): Promise<RunningServices> {
  const clock = overrides.clock ?? systemClock
  // First: a bucket that does not answer refuses the start before anything runs (BLOB_STORE=s3).
  const s3 = config.blobStore.kind === 's3' ? await openS3BlobStore(config.blobStore, database, clock) : undefined
  const principals = new PrincipalCache(() => clock.now().getTime())
  await database.subscribe(
    PRINCIPALS_CHANGED_CHANNEL,
    () => principals.clear(),
    (live) => principals.setLive(live),
  )
  const instanceKey = instanceKeyFor(config, logger)
  const mailer = overrides.mailer ?? (config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom) : logMailer(logger))
  const blobs = s3 ?? blobStoreFor(database)
  const mail = startMailDispatcher({
    db: database.db,
    blobs,
    mailer,
    clock,
    logger,
    pollMs: config.mailPollMs,
    messageIdDomain: new URL(config.publicUrl).hostname,
  })
  const pdfWork = new PdfWork(config.pdfWork, config.pdfLimits, logger)
  const metricsOn = config.metrics.token !== undefined || config.metrics.port !== undefined
  const metrics = metricsOn ? await createPrometheusMetrics({ db: database.db, clock, logger, pdfWork, dbPool: poolCountsOf(database) }) : noMetrics
  const sealer = await loadSealer({ config, db: database.db, clock, logger, pdfWork }, overrides.timestampAuthority)
  const finalPdfs = startFinalPdfJob({ db: database.db, blobs, clock, logger, mail, sealer, pdfWork, config, metrics, pollMs: config.jobPollMs })
  const expiry = startBackgroundLoop({
    name: 'document expiry',
    pollMs: config.jobPollMs,
    logger,
    // The day-before warnings first: a document whose warning and expiry fall in one sweep is warned no more.
    work: async () => {
      const notices = (await sendExpiryWarnings({ db: database.db, clock, config })) + (await expireDueDocuments(database.db, clock, config.publicUrl))
      if (notices > 0) mail.kick()
    },
  })
  // Reminders to signers who have not finished (documents/reminders.ts); `admin jobs run --now` runs the same sweep at a chosen instant.
  const reminders = startBackgroundLoop({
    name: 'signer reminders',
    pollMs: config.jobPollMs,
    logger,
    work: async () => {
      if ((await sendDueReminders({ db: database.db, clock, config })) > 0) mail.kick()
    },
  })
  const webhooks = startWebhookDispatcher({ db: database.db, clock, logger, config })
  // api_keys.last_used_at, written off the request path (api-keys/key-uses.ts).
  const keyUses = startBackgroundLoop({
    name: 'API key last use',
    pollMs: KEY_USE_FLUSH_MS,
    logger,
    work: () => flushKeyUses(database.db, clock, principals.uses),
  })
  // Expired OAuth codes, tokens and interactions (oauth/storage-adapter.ts).
  const oauthSweep = startBackgroundLoop({
    name: 'OAuth records expiry',
    pollMs: OAUTH_SWEEP_MS,
    logger,
    work: () => deleteExpiredOAuthRecords(database.db, clock.now()),
  })
  // Housekeeping off the request path: Idempotency-Key answers past their 24 hours, and live event
  // stream sessions whose process stopped beating (they already no longer count against the cap).
  const expiredRecords = startBackgroundLoop({
    name: 'expired records',
    pollMs: config.jobPollMs,
    logger,
    work: async () => {
      const now = clock.now()
      await deleteExpiredIdempotentRequests(database.db, now)
      await closeLostStreamSessions(database.db, now)
    },
  })
  // Objects a crash or a rollback left between stage and commit (adapters/s3-blob-store.ts).
  const unreferencedObjects =
    s3 &&
    startBackgroundLoop({
      name: 'unreferenced blob objects',
      pollMs: UNREFERENCED_SWEEP_MS,
      logger,
      work: async () => {
        const deleted = await s3.sweepUnreferenced(clock.now())
        if (deleted > 0) logger.info({ deleted }, 'deleted unreferenced blob objects')
      },
    })
  return {
    config,
    db: database.db,
    clock,
    blobs,
    mail,
    logger,
    principals,
    pdfWork,
    sealer,
    finalPdfs,
    webhooks,
    identityVerifier: overrides.identityVerifier ?? manualIdentityVerifier,
    fetchClientMetadata: overrides.fetchClientMetadata ?? guardedMetadataFetcher({ allowPrivate: config.webhookAllowPrivate }),
    identityDocuments: documentCipherFor(instanceKey),
    secrets: secretSealerFor(instanceKey),
    metrics,
    close: async () => {
      await Promise.all([
        expiry.stop(),
        reminders.stop(),
        finalPdfs.stop(),
        webhooks.stop(),
        keyUses.stop(),
        oauthSweep.stop(),
        expiredRecords.stop(),
        unreferencedObjects?.stop(),
      ])
      await mail.stop()
      s3?.close()
      await database.close()
    },
  }
}

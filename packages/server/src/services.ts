// Types only: every domain module imports this, so it must import no code (compose-services.ts builds it).
import type { BlobStore } from './adapters/blob-store.ts'
import type { Clock } from './adapters/clock.ts'
import type { DocumentCipher, SecretSealer } from './adapters/document-cipher.ts'
import type { IdentityVerifier } from './adapters/identity-verifier.ts'
import type { MetadataFetcher } from './adapters/metadata-fetcher.ts'
import type { PrincipalCache } from './api-keys/principal-cache.ts'
import type { Config } from './config.ts'
import type { Db } from './db/client.ts'
import type { BackgroundLoop } from './lib/background-loop.ts'
import type { Logger } from './lib/logger.ts'
import type { MailDispatcher } from './mail/outbox.ts'
import type { Metrics } from './metrics/metrics.ts'
import type { PdfWork } from './pdf-work/pdf-work.ts'
import type { Sealer } from './seal/sealer.ts'

/** Everything domain code may touch, passed explicitly; each side effect is an adapter tests can swap. */
export interface Services {
  config: Config
  db: Db
  clock: Clock
  blobs: BlobStore
  mail: MailDispatcher
  logger: Logger
  principals: PrincipalCache
  /** Every PDF parse, render and seal runs in this worker pool, off the event loop. */
  pdfWork: PdfWork
  /** Applies the instance's seal (PAdES + RFC 3161 timestamp) to final PDFs. */
  sealer: Sealer
  /** Renders and seals completed documents' final PDFs; kick it after a completion. */
  finalPdfs: BackgroundLoop
  /** Delivers queued webhook deliveries; kick it after a commit that queued some. */
  webhooks: BackgroundLoop
  /** Decides identity checks (orgs/identity-checks.ts); by default the operator does. */
  identityVerifier: IdentityVerifier
  /** Encrypts identity documents at rest, each under its own key wrapped with the instance key (IDENTITY_DOCUMENT_KEY or a key file in DATA_DIR). */
  identityDocuments: DocumentCipher
  /** Fetches OAuth clients' metadata documents (a URL as client_id), through the SSRF guard. */
  fetchClientMetadata: MetadataFetcher
  /** Encrypts small secrets at rest (TOTP secrets) with the same instance key. */
  secrets: SecretSealer
  /** Prometheus metrics (metrics/): domain code records counts through it; a no-op unless METRICS_TOKEN or METRICS_PORT is set. */
  metrics: Metrics
}

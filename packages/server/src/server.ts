import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import type { Database } from './db/client.ts'
import { openInstanceDatabase } from './db/instance.ts'
import { createLogger, type Logger } from './lib/logger.ts'
import { createServices } from './compose-services.ts'
import { startAdminSocket } from './admin/socket.ts'
import { issueOperatorSetupLink } from './accounts/operator-setup.ts'
import { listenForMetrics } from './http/routes/metrics.ts'
import { ClusterMismatchError, joinCluster, NOT_CLUSTERED, sharedSettingFingerprints, type ClusterMembership } from './operator/cluster-nodes.ts'

/**
 * What a person starting the server needs: where to open the dashboard and, on an instance
 * without an operator yet, the one-time link that creates the operator. Written outside the
 * log (which never carries tokens): to stdout on a terminal, to stderr when stdout is the
 * JSON log a collector reads.
 */
function printWelcome(config: Config, setupLink: string | null): void {
  const lines = [`Signet is running. Open the dashboard: ${config.publicUrl}/app/`]
  if (setupLink) {
    lines.push('This instance has no operator yet. Create the operator account with this one-time link (a new one at every start until then):')
    lines.push(`  ${setupLink}`)
  }
  ;(process.stdout.isTTY ? process.stdout : process.stderr).write(`\n${lines.join('\n')}\n\n`)
}

/** Where Prometheus reads the metrics, for the start's log line. */
function metricsLocations(config: Config): string {
  const { token, port, host } = config.metrics
  const places: string[] = []
  if (token !== undefined) places.push(`${config.publicUrl}/metrics (with METRICS_TOKEN)`)
  if (port !== undefined) places.push(`http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`)
  return places.join(', ') || 'off'
}

/** Records this node beside the others on the database, or exits 1 naming the setting they disagree on. */
async function joinClusterOrExit(config: Config, database: Database, logger: Logger): Promise<ClusterMembership> {
  if (!config.clusterCheck) return NOT_CLUSTERED
  try {
    return await joinCluster(database, { publicUrl: config.publicUrl, fingerprints: () => sharedSettingFingerprints(config, logger) }, logger)
  } catch (error) {
    if (!(error instanceof ClusterMismatchError)) throw error
    process.stderr.write(`Refusing to start: ${error.message}\n`)
    await database.close()
    process.exit(1)
  }
}

/** Process entry: open the database (migrating it), serve HTTP and the admin socket, shut down cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config
  try {
    config = loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
      process.exit(1)
    }
    throw error
  }
  const logger = createLogger(config)
  const database = await openInstanceDatabase(config, (error) => logger.warn({ err: error }, 'database connection error'))
  const cluster = await joinClusterOrExit(config, database, logger)
  const services = await createServices(config, database, logger).catch(async (error: unknown) => {
    // A setting only a running service can check (an S3 bucket that does not answer): the same refusal as loadConfig's.
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`Refusing to start: ${error.message}\n`)
    await cluster.leave()
    await database.close()
    process.exit(1)
  })
  const lifecycle = { draining: false }
  const app = await buildApp(services, lifecycle)
  const adminSocket = database.kind === 'pglite' ? await startAdminSocket(services) : undefined

  let metricsListener: FastifyInstance | undefined
  let closing = false
  // Fastify 5.12 closes only the keep-alive connections that are idle when close() begins
  // (fastify#7044): one whose request was still running would stay open after its response and
  // hold app.close() until the forced exit. Such responses ask the client to close instead.
  // A callback hook, not an async one: it runs on every response, and a promise each is measurable.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    if (signal === 'SIGTERM' && config.shutdownGraceMs > 0) {
      lifecycle.draining = true
      logger.info({ signal, graceMs: config.shutdownGraceMs }, 'draining: /healthz answers 503 while requests are still served')
      await sleep(config.shutdownGraceMs)
    }
    logger.info({ signal }, 'shutting down: finishing in-flight requests')
    const forceExit = setTimeout(() => {
      logger.error('shutdown took longer than 15 s; exiting')
      process.exit(1)
    }, 15_000)
    forceExit.unref()
    try {
      await adminSocket?.close()
      await app.close()
      await metricsListener?.close()
      await cluster.leave()
      await services.close()
      logger.info('shutdown complete')
      process.exit(0)
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed')
      process.exit(1)
    }
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))

  // E.g. a port is taken: release the database and the lock rather than die holding them.
  const cannotListen = async (error: unknown, where: string): Promise<never> => {
    logger.fatal({ err: error }, `cannot listen on ${where}`)
    await metricsListener?.close()
    await adminSocket?.close()
    await cluster.leave()
    await services.close()
    process.exit(1)
  }
  const { metrics: metricsConfig } = config
  // The metrics listener first: a port it cannot have stops the start before the server takes requests.
  if (metricsConfig.port !== undefined) {
    const where = { port: metricsConfig.port, host: metricsConfig.host }
    metricsListener = await listenForMetrics(services.metrics, where, logger).catch((error: unknown) =>
      cannotListen(error, `${where.host}:${where.port} (METRICS_PORT)`),
    )
  }
  await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => cannotListen(error, `${config.host}:${config.port}`))
  logger.info(
    {
      url: config.publicUrl,
      dashboard: `${config.publicUrl}/app/`,
      api: `${config.publicUrl}/api/v1`,
      mcp: `${config.publicUrl}/api/mcp`,
      database: database.kind,
      mail: config.smtpUrl ? 'smtp' : 'local outbox',
      metrics: metricsLocations(config),
    },
    'Signet is ready',
  )
  printWelcome(config, await issueOperatorSetupLink(services))
}

await main()

import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { Command, InvalidArgumentError, Option } from 'commander'
import { ConfigError, loadConfig, type Config } from '../config.ts'
import { AppError } from '../errors.ts'
import { PLANS } from '../db/plans.ts'
import { WORKSPACE_ROLES, type Scope, type WorkspaceRole } from '../db/schema.ts'
import { MAX_SPEND_CAP_CENTS, PERIOD_PATTERN } from '../billing/plans.ts'
import type { AdminCommand } from './commands.ts'
import { adminSocketPath } from './socket-path.ts'

/**
 * The operator CLI: `npm run -s admin -- <command>`. Prints the result as JSON on stdout;
 * errors go to stderr with exit code 1. With the embedded database and a running server,
 * the command runs inside the server (over the admin socket); otherwise it opens the
 * database itself.
 */

class CliError extends Error {}

/** Sends the command to a running server; undefined when no server is listening. */
function sendToServer(socketPath: string, command: AdminCommand): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: '/commands', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown; error?: string }
        if (res.statusCode === 200) resolve(body.result)
        else reject(new CliError(body.error ?? `admin socket answered ${res.statusCode}`))
      })
    })
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve(undefined)
      else reject(error)
    })
    req.end(JSON.stringify(command))
  })
}

/** Opens the database in this process. Imported lazily: the PDF and database code take a second to load, and a command sent to a running server needs neither. */
async function runLocally(config: Config, command: AdminCommand): Promise<unknown> {
  const [{ openInstanceDatabase }, { executeAdminCommand }, { blobStoreFor }, { systemClock }, { PdfWork }, { createLogger }] = await Promise.all([
    import('../db/instance.ts'),
    import('./commands.ts'),
    import('../adapters/blob-store.ts'),
    import('../adapters/clock.ts'),
    import('../pdf-work/pdf-work.ts'),
    import('../lib/logger.ts'),
  ])
  const database = await openInstanceDatabase(config)
  try {
    // The PDF worker (tsx, @libpdf/core, resvg: a second or two of CPU) starts only for a command that opens a PDF.
    let pdfWork: InstanceType<typeof PdfWork> | undefined
    const services = {
      db: database.db,
      blobs: blobStoreFor(database),
      clock: systemClock,
      config,
      get pdfWork() {
        return (pdfWork ??= new PdfWork(config.pdfWork, config.pdfLimits, createLogger(config)))
      },
    }
    return await executeAdminCommand(services, command)
  } finally {
    await database.close()
  }
}

/** Through the running server if there is one, else on the embedded database directly. */
async function runEmbedded(config: Config, command: AdminCommand): Promise<unknown> {
  const socketPath = adminSocketPath(config.dataDir)
  const fromServer = await sendToServer(socketPath, command)
  if (fromServer !== undefined) return fromServer
  try {
    return await runLocally(config, command)
  } catch (error) {
    // A starting server takes the lock before it serves the socket; after our lock wait it usually serves.
    if (!(error instanceof AppError && error.code === 'conflict')) throw error
    const late = await sendToServer(socketPath, command)
    if (late === undefined) throw error
    return late
  }
}

async function run(command: AdminCommand): Promise<void> {
  const config = loadConfig()
  const result = config.databaseUrl ? await runLocally(config, command) : await runEmbedded(config, command)
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
}

function readFile(path: string, what: string): Buffer {
  try {
    return readFileSync(path)
  } catch (error) {
    throw new CliError(`Cannot read the ${what} file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
  }
}

function readFieldsFile(path: string): unknown {
  try {
    return JSON.parse(readFile(path, 'fields').toString('utf8'))
  } catch (error) {
    if (error instanceof CliError) throw error
    throw new CliError(`The fields file ${path} is not valid JSON: ${(error as Error).message}`)
  }
}

const planOption = (flags: string) => new Option(flags, 'plan').choices(PLANS)
const positiveInteger = (value: string): number => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError('must be an integer from 1 to 1000')
  return n
}

/** 'none' stays a string here: commander replaces a parser's null with true. */
const spendCapCents = (value: string): number | 'none' => {
  if (value === 'none') return 'none'
  const n = Number(value)
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n > MAX_SPEND_CAP_CENTS) {
    throw new InvalidArgumentError(`must be a whole number of US cents from 0 to ${MAX_SPEND_CAP_CENTS}, or none`)
  }
  return n
}
const period = (value: string): string => {
  if (!new RegExp(PERIOD_PATTERN).test(value)) throw new InvalidArgumentError('must be a calendar month, YYYY-MM')
  return value
}

const program = new Command('admin').description('Signet operator commands; output is JSON').showHelpAfterError()

const org = program.command('org').description('organizations')
org
  .command('create')
  .requiredOption('--name <name>', 'org name')
  .addOption(planOption('--plan <plan>').default('free'))
  .action((opts: { name: string; plan: (typeof PLANS)[number] }) => run({ name: 'org.create', orgName: opts.name, plan: opts.plan }))
org
  .command('set-plan')
  .requiredOption('--org <org_id>', 'org id')
  .addOption(planOption('--plan <plan>').makeOptionMandatory())
  .action((opts: { org: string; plan: (typeof PLANS)[number] }) => run({ name: 'org.set-plan', orgId: opts.org, plan: opts.plan }))

org
  .command('set-spend-cap')
  .description('cap the billable usage per calendar month (Pro, Team, Business)')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--cents <cents>', 'the cap in US cents, or none to remove it', spendCapCents)
  .action((opts: { org: string; cents: number | 'none' }) =>
    run({ name: 'org.set-spend-cap', orgId: opts.org, cents: opts.cents === 'none' ? null : opts.cents }),
  )

org
  .command('verify-identity')
  .description('record the one-time identity check sealing needs (valid 365 days); the legal name is printed on every seal')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--legal-name <name>', 'the legal name you checked, e.g. "Acme Widgets Ltd"')
  .action((opts: { org: string; legalName: string }) => run({ name: 'org.verify-identity', orgId: opts.org, legalName: opts.legalName }))

org
  .command('identity-checks')
  .description('identity checks submitted from the dashboard (pending by default: the queue)')
  .addOption(new Option('--status <status>', 'which checks').choices(['pending', 'approved', 'rejected']).default('pending'))
  .action((opts: { status: 'pending' | 'approved' | 'rejected' }) => run({ name: 'org.identity-checks', status: opts.status }))

org
  .command('decide-identity')
  .description('approve or reject a pending identity check (its ID document is erased either way; the Operator area shows the document)')
  .requiredOption('--check <check_id>', 'the check id (admin org identity-checks)')
  .addOption(new Option('--approve', 'approve: sealing works for 365 days').conflicts('reject'))
  .addOption(new Option('--reject', 'reject (needs --reason)').conflicts('approve'))
  .option('--legal-name <name>', 'when approving: the legal name as you verified it, if it differs from the one submitted')
  .option('--reason <text>', 'shown to the owner; required when rejecting')
  .action((opts: { check: string; approve?: boolean; reject?: boolean; legalName?: string; reason?: string }) => {
    if (!opts.approve && !opts.reject) throw new CliError('Give --approve or --reject.')
    return run({
      name: 'org.decide-identity',
      checkId: opts.check,
      approve: opts.approve === true,
      ...(opts.legalName !== undefined ? { legalName: opts.legalName } : {}),
      ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
    })
  })

const key = program.command('key').description('API keys')
/** --scope's choices: a key reads, or reads and writes (a key that writes also reads: api-keys/manage-api-keys.ts). */
const KEY_SCOPES = { read: ['read'], 'read-write': ['read', 'write'] } as const satisfies Record<string, readonly Scope[]>
key
  .command('create')
  .requiredOption('--org <org_id>', 'org id')
  .addOption(
    new Option('--scope <scope>', 'read: documents and usage only; read-write: also send, seal and manage')
      .choices(Object.keys(KEY_SCOPES))
      .default('read-write'),
  )
  .action((opts: { org: string; scope: keyof typeof KEY_SCOPES }) => run({ name: 'key.create', orgId: opts.org, scopes: [...KEY_SCOPES[opts.scope]] }))
key
  .command('revoke')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--prefix <prefix>', 'the key prefix, e.g. sgn_live_1a2b3c4d')
  .action((opts: { org: string; prefix: string }) => run({ name: 'key.revoke', orgId: opts.org, prefix: opts.prefix }))

program
  .command('template')
  .description('templates')
  .command('create')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--name <name>', 'template name (becomes the document title)')
  .requiredOption('--pdf <file>', 'the PDF')
  .option('--fields <file.json>', 'fields: [{"role":0,"type":"signature","page":1,"x":72,"y":650,"width":180,"height":40}]')
  .action((opts: { org: string; name: string; pdf: string; fields?: string }) =>
    run({
      name: 'template.create',
      orgId: opts.org,
      templateName: opts.name,
      pdfBase64: readFile(opts.pdf, 'PDF').toString('base64'),
      ...(opts.fields ? { fields: readFieldsFile(opts.fields) } : {}),
    }),
  )

program
  .command('document')
  .description('documents')
  .command('rerender')
  .description("try again to produce a completed document's signed (or sealed) PDF after it failed for good (see the log's alert)")
  .requiredOption('--id <document_id>', 'document id')
  .action((opts: { id: string }) => run({ name: 'document.rerender', documentId: opts.id }))

program
  .command('jobs')
  .description('background jobs')
  .command('run')
  .description('run the time-driven sweeps (reminders, then expiry) once, now or as if it were --now: how tests and drills move time')
  .option('--now <iso_time>', 'the instant to run them at, a UTC date-time such as 2030-01-31T17:00:00Z (default: the current time)')
  .action((opts: { now?: string }) => run({ name: 'jobs.run', ...(opts.now ? { now: opts.now } : {}) }))

program
  .command('blobs')
  .description('where PDFs and images are stored')
  .command('migrate')
  .description(
    'copy every stored file into the S3 bucket of BLOB_STORE=s3 and the S3_* settings, check each copy, then remove it from the database or DATA_DIR/blobs; safe to interrupt and run again',
  )
  .addOption(new Option('--to <store>', 'the store to move them to').choices(['s3']).makeOptionMandatory())
  .action(async () => {
    const config = loadConfig()
    if (config.blobStore.kind !== 's3') throw new CliError('Set BLOB_STORE=s3 and S3_BUCKET (and the other S3_* settings the server will use).')
    const { migrateBlobs } = await import('./migrate-blobs.ts')
    const summary = await migrateBlobs(config, config.blobStore, (line) => process.stderr.write(`${line}\n`))
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`)
    if (summary.missing.length > 0 || summary.failed.length > 0) throw new CliError('Some blobs were not moved (see "missing" and "failed"); the others were.')
  })

program
  .command('credits')
  .description('credit packs (Free plan)')
  .command('grant')
  .description('add packs of 25 credits to the org; they never expire')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--packs <n>', 'how many packs', positiveInteger)
  .option('--reference <ref>', 'a payment or invoice reference; granting the same reference again grants nothing')
  .action((opts: { org: string; packs: number; reference?: string }) =>
    run({ name: 'credits.grant', orgId: opts.org, packs: opts.packs, ...(opts.reference ? { reference: opts.reference } : {}) }),
  )

program
  .command('usage')
  .description('metered usage')
  .command('show')
  .requiredOption('--org <org_id>', 'org id')
  .option('--period <YYYY-MM>', 'calendar month (UTC); default the current one', period)
  .action((opts: { org: string; period?: string }) => run({ name: 'usage.show', orgId: opts.org, ...(opts.period ? { period: opts.period } : {}) }))

program
  .command('webhook')
  .description('webhook endpoints')
  .command('add')
  .description('register an endpoint (Pro and higher); prints its signing secret once')
  .requiredOption('--org <org_id>', 'org id')
  .requiredOption('--url <url>', 'the https:// URL that receives the events')
  .action((opts: { org: string; url: string }) => run({ name: 'webhook.add', orgId: opts.org, url: opts.url }))

/** The whole of standard input, less one trailing newline (`echo secret | admin user create … --password-stdin`). */
async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

const user = program.command('user').description('dashboard users')
user
  .command('create')
  .description('create a verified user; with --org they join that workspace (default role member)')
  .requiredOption('--email <email>', 'their e-mail address')
  .requiredOption('--name <name>', 'their name')
  .option('--password <password>', 'their password (visible to other local users in the process list: prefer --password-stdin)')
  .option('--password-stdin', 'read the password from standard input')
  .option('--operator', 'make them an instance operator')
  .option('--org <org_id>', 'a workspace to join')
  .addOption(new Option('--role <role>', 'their role in --org').choices(WORKSPACE_ROLES))
  .action(async (opts: { email: string; name: string; password?: string; passwordStdin?: boolean; operator?: boolean; org?: string; role?: WorkspaceRole }) => {
    if ((opts.password === undefined) === !opts.passwordStdin) throw new CliError('Give the password with exactly one of --password and --password-stdin.')
    const password = opts.passwordStdin ? await readPasswordFromStdin() : (opts.password ?? '')
    await run({
      name: 'user.create',
      email: opts.email,
      userName: opts.name,
      password,
      operator: opts.operator ?? false,
      ...(opts.org ? { orgId: opts.org } : {}),
      ...(opts.role ? { role: opts.role } : {}),
    })
  })
user
  .command('list')
  .description('every user, with their workspaces')
  .action(() => run({ name: 'user.list' }))
user
  .command('disable')
  .description('stop a user from signing in and end their sessions')
  .requiredOption('--email <email>', 'their e-mail address')
  .action((opts: { email: string }) => run({ name: 'user.disable', email: opts.email }))
user
  .command('enable')
  .description('let a disabled user sign in again')
  .requiredOption('--email <email>', 'their e-mail address')
  .action((opts: { email: string }) => run({ name: 'user.enable', email: opts.email }))
user
  .command('promote')
  .description("make a user an instance operator (the dashboard's Operator area)")
  .requiredOption('--email <email>', 'their e-mail address')
  .action((opts: { email: string }) => run({ name: 'user.promote', email: opts.email }))
user
  .command('reset-two-factor')
  .description("remove a user's authenticator app, passkeys and recovery codes and end their sessions (they lost them; they are mailed)")
  .requiredOption('--email <email>', 'their e-mail address')
  .action((opts: { email: string }) => run({ name: 'user.reset-two-factor', email: opts.email }))

program
  .command('mail')
  .description('the mail outbox')
  .command('list')
  .option('--to <email>', 'only messages to this address')
  .option('--limit <n>', 'how many, newest first', positiveInteger, 20)
  .action((opts: { to?: string; limit: number }) => run({ name: 'mail.list', limit: opts.limit, ...(opts.to ? { to: opts.to } : {}) }))

try {
  await program.parseAsync(process.argv)
} catch (error) {
  const known = error instanceof AppError || error instanceof CliError || error instanceof ConfigError
  process.stderr.write(`error: ${known ? error.message : String((error as Error).stack ?? error)}\n`)
  process.exitCode = 1
}

import { Argument, Command, CommanderError, Option } from 'commander'
import { collect, parseId, parseRecipient } from './args.ts'
import type { BulkOptions } from './commands/bulk.ts'
import type { DownloadOptions } from './commands/download.ts'
import type { ListenOptions } from './commands/listen.ts'
import type { SealCommandOptions } from './commands/seal.ts'
import type { SendOptions } from './commands/send.ts'
import type { StatusOptions } from './commands/status.ts'
import type { VerifyCommandOptions } from './commands/verify.ts'
import { EXIT } from './exit-codes.ts'
import { VERSION } from './version.ts'

/**
 * The command tree. Each action imports its command's module only when it runs (the bundle keeps
 * each in its own chunk), so no command pays for another's dependencies at start.
 */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('signet')
    .description('Send, track, seal and verify documents with Signet, and forward live webhook events to localhost.')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
  const json = () => new Option('--json', 'print JSON for scripts')
  const act =
    <A extends unknown[]>(handler: (...args: A) => Promise<number>) =>
    async (...args: A) =>
      setExitCode(await handler(...args))

  program
    .command('login')
    .description('check an API key against the server and store it (with the URL) in your config directory, readable by you only')
    .option('--api-key <key>', 'the key (prompted for when left out)')
    .option('--url <url>', 'the server (default: SIGNET_URL, else http://127.0.0.1:3000)')
    .addOption(json())
    .action(act(async (options: { apiKey?: string; url?: string; json?: boolean }) => (await import('./commands/login.ts')).login(options)))
  program
    .command('logout')
    .description('forget the stored API key')
    .addOption(json())
    .action(act(async (options: { json?: boolean }) => (await import('./commands/login.ts')).logout(options)))

  program
    .command('templates')
    .description('templates')
    .command('list')
    .description("list the workspace's templates")
    .addOption(json())
    .action(act(async (options: { json?: boolean }) => (await import('./commands/templates.ts')).listTemplates(options)))

  program
    .command('send')
    .description('send a document from a template')
    .requiredOption('--template <id>', 'the template id (signet templates list)', parseId)
    .option('--to <email[:name]>', 'a signer, repeatable: the first is Party 1, the next Party 2…', collect(parseRecipient))
    .option('--signer <role=email[:name]>', "a signer for a role: its number (0 is Party 1) or the template's role name; repeatable", collect(String))
    .option('--title <title>', 'the document title (default: the template name and the first signer)')
    .addOption(json())
    .action(act(async (options: SendOptions) => (await import('./commands/send.ts')).send(options)))

  program
    .command('bulk')
    .description('send a one-signer template to every row of a CSV (columns email,name); resumable: run it again after an interruption')
    .argument('<recipients.csv>', 'the CSV file, with a header row')
    .requiredOption('--template <id>', 'the template id (signet templates list)', parseId)
    .option('--state <file>', 'where progress is recorded (default: <recipients.csv>.signet-bulk.json)')
    .addOption(json())
    .action(act(async (file: string, options: BulkOptions) => (await import('./commands/bulk.ts')).bulk(file, options)))

  program
    .command('status')
    .description("a document's status and signers")
    .argument('<id>', 'the document id', parseId)
    .option('--watch', 'follow it until it is completed, declined or voided')
    .addOption(new Option('--interval <seconds>', '--watch reads it on each of its live events, and at least this often').default(30).argParser(Number))
    .addOption(json())
    .action(act(async (id: string, options: StatusOptions) => (await import('./commands/status.ts')).status(id, options)))

  program
    .command('download')
    .description('download the signed PDF of a completed document')
    .argument('<id>', 'the document id', parseId)
    .option('-o, --output <file>', 'where to write it (default: <id>.pdf; - for stdout)')
    .addOption(json())
    .action(act(async (id: string, options: DownloadOptions) => (await import('./commands/download.ts')).download(id, options)))

  program
    .command('void')
    .description('void a document that is out for signature (its links stop working)')
    .argument('<id>', 'the document id', parseId)
    .addOption(json())
    .action(act(async (id: string, options: { json?: boolean }) => (await import('./commands/void.ts')).voidDocument(id, options)))

  program
    .command('seal')
    .description('seal a finished PDF: writes <file>.sealed.pdf and the Verified Badge <file>.badge.png next to it')
    .argument('<file.pdf>', 'the PDF to seal')
    .option('--title <title>', "shown on the badge and certificate (default: the file's name)")
    .addOption(json())
    .action(act(async (file: string, options: SealCommandOptions) => (await import('./commands/seal.ts')).seal(file, options)))

  program
    .command('verify')
    .description("check a PDF's signatures and timestamps offline with the open-source verifier (exit codes as signet-verify's)")
    .argument('<file.pdf>', 'the PDF to verify')
    .option('--trust <root>', 'a trust anchor: a PEM/DER certificate file or sha256/<pin>; repeatable', collect(String))
    .addOption(json())
    .action(act(async (file: string, options: VerifyCommandOptions) => (await import('./commands/verify.ts')).verify(file, options)))

  program
    .command('usage')
    .description("this month's metered usage and what is left of the allowance")
    .addOption(json())
    .action(act(async (options: { json?: boolean }) => (await import('./commands/usage.ts')).usage(options)))

  program
    .command('listen')
    .description("forward the workspace's live webhook events to a local URL, signed as a registered endpoint gets them")
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:4000/webhooks')
    .option('--secret <whsec_…>', 'the signing secret (default: a new one for this run, printed once)')
    .addOption(json())
    .action(act(async (options: ListenOptions) => (await import('./commands/listen.ts')).listen(options)))

  program
    .command('trigger')
    .description('send a realistic test event to the running `signet listen` sessions of the workspace')
    .argument('<event>', 'document.viewed, document.signed, document.completed or document.declined')
    .addOption(json())
    .action(act(async (event: string, options: { json?: boolean }) => (await import('./commands/trigger.ts')).trigger(event, options)))

  program
    .command('completion')
    .description('print a shell completion script: eval "$(signet completion bash)"')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .action(act(async (shell: 'bash' | 'zsh') => (await import('./commands/completion.ts')).completion(shell, program)))

  return program
}

/** Runs the command line and returns the exit code (README: "Exit codes"). */
export async function run(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.ok
  const program = buildProgram((code) => (exitCode = code))
  const json = argv.includes('--json')
  try {
    await program.parseAsync(argv, { from: 'user' })
    return exitCode
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed the message (or the help) already.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? EXIT.ok : EXIT.usage
    }
    const { reportError } = await import('./report-error.ts')
    return reportError(error, json)
  }
}

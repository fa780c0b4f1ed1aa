/** The exit codes every command uses (README, "Exit codes"); `signet verify` answers with signet-verify's own. */
export const EXIT = {
  ok: 0,
  /** Signet refused the request, or the command failed. */
  failed: 1,
  /** Bad arguments or unusable input (a file, a URL, a CSV header): nothing was sent. */
  usage: 2,
  /** No API key configured, or the server refused it. */
  auth: 3,
  /** The server could not be reached. */
  unreachable: 4,
  /** Done in part: some bulk rows were not sent (each is reported). */
  partial: 5,
  /** Stopped by Ctrl-C (SIGINT); a bulk send resumes when run again. */
  interrupted: 130,
} as const

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message)
    this.name = 'CliError'
  }
}

export const usageError = (message: string): CliError => new CliError(message, EXIT.usage)

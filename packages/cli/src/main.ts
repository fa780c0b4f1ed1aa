import { VERSION } from './version.ts'

/**
 * The bundle's entry. `signet --version` answers from here without loading anything else; every
 * other command loads the parser (program.ts), which loads only the module of the command it runs.
 */
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`)
    return 0
  }
  const { run } = await import('./program.ts')
  return run(argv)
}

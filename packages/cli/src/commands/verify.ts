// The open-source verifier's own command (packages/verify/src/cli.ts): the same checks, output and
// exit codes as `signet-verify`, offline. Its package exports only the library, hence the path.
import { main as verifierMain } from '../../../verify/src/cli.ts'

export interface VerifyCommandOptions {
  trust?: string[]
  json?: boolean
}

export async function verify(file: string, options: VerifyCommandOptions): Promise<number> {
  return verifierMain([file, ...(options.json ? ['--json'] : []), ...(options.trust ?? []).flatMap((anchor) => ['--trust', anchor])])
}

// The open-source verifier's own command (@signet/verify's cli subpath): the same checks, output
// and exit codes as `signet-verify`, offline.
import { main as verifierMain } from '@signet/verify/cli'

export interface VerifyCommandOptions {
  trust?: string[]
  json?: boolean
}

export async function verify(file: string, options: VerifyCommandOptions): Promise<number> {
  return verifierMain([file, ...(options.json ? ['--json'] : []), ...(options.trust ?? []).flatMap((anchor) => ['--trust', anchor])])
}

import { createInterface } from 'node:readline'
import { connect } from '../client.ts'
import { configFile, normalizeServerUrl, removeStoredConfig, resolveUrl, writeStoredConfig } from '../config.ts'
import { usageError } from '../exit-codes.ts'
import { print, printJson } from '../output.ts'

/** Reads the key from the terminal without echoing it, or a line from piped stdin. */
async function promptForKey(): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8').split('\n')[0]?.trim() ?? ''
  }
  process.stderr.write('API key (Settings → API keys): ')
  const reader = createInterface({ input: process.stdin, terminal: true })
  // Nothing typed is echoed: the key must not stay on the screen or in a scrollback.
  ;(reader as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = () => undefined
  const key = await new Promise<string>((resolve) => reader.question('', resolve))
  reader.close()
  process.stderr.write('\n')
  return key.trim()
}

export async function login(options: { apiKey?: string; url?: string; json?: boolean }): Promise<number> {
  const url = options.url ? normalizeServerUrl(options.url, '--url') : resolveUrl()
  const apiKey = options.apiKey?.trim() || (await promptForKey())
  if (!apiKey) throw usageError('No API key given: pass --api-key <key> or type it at the prompt.')
  // The key must work before it is kept: a typo found now, not at the next command.
  const { signet } = connect({ url, apiKey })
  const usage = await signet.usage.get()
  const path = writeStoredConfig({ url, apiKey })
  if (options.json) printJson({ url, org_id: usage.org_id, plan: usage.plan, config_file: path })
  else print(`Logged in to ${url} (workspace ${usage.org_id}, ${usage.plan} plan). The key is stored in ${path} (mode 0600).`)
  return 0
}

export async function logout(options: { json?: boolean }): Promise<number> {
  const removed = removeStoredConfig()
  if (options.json) printJson({ logged_out: removed, config_file: configFile() })
  else print(removed ? `Logged out: ${configFile()} removed.` : 'Not logged in: nothing stored.')
  return 0
}

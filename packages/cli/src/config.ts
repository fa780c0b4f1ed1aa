import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { CliError, EXIT, usageError } from './exit-codes.ts'

/** The server's default address (PORT defaults to 3000 in packages/server/src/config.ts). */
export const DEFAULT_URL = 'http://127.0.0.1:3000'

export interface Credentials {
  url: string
  apiKey: string
}

/** $XDG_CONFIG_HOME/signet, else ~/.config/signet. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(homedir(), '.config')
  return join(base, 'signet')
}

export const configFile = (): string => join(configDir(), 'config.json')

/** The stored login, or undefined when there is none. */
export function readStoredConfig(): Partial<Credentials> | undefined {
  const path = configFile()
  if (!existsSync(path)) return undefined
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'))
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object')
    const { url, apiKey } = parsed as Record<string, unknown>
    return { ...(typeof url === 'string' ? { url } : {}), ...(typeof apiKey === 'string' ? { apiKey } : {}) }
  } catch {
    throw new CliError(`${path} is not a valid config file: run \`signet login\` again (or delete it).`, EXIT.usage)
  }
}

/** Writes the login readable by its owner only: the directory 0700, the file 0600 (written aside, then renamed). */
export function writeStoredConfig(credentials: Credentials): string {
  const dir = configDir()
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  const path = configFile()
  const aside = `${path}.${process.pid}.tmp`
  writeFileSync(aside, `${JSON.stringify({ url: credentials.url, apiKey: credentials.apiKey }, null, 2)}\n`, { mode: 0o600 })
  chmodSync(aside, 0o600)
  renameSync(aside, path)
  return path
}

/** Removes the stored login; false when there was none. */
export function removeStoredConfig(): boolean {
  const path = configFile()
  if (!existsSync(path)) return false
  rmSync(path)
  return true
}

/** An http(s) URL without a trailing slash, or a usage error naming where it came from. */
export function normalizeServerUrl(value: string, source: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw usageError(`${source} is not a URL: "${value}" (e.g. ${DEFAULT_URL}).`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`${source} must be an http:// or https:// URL (got "${value}").`)
  return url.href.replace(/\/+$/, '')
}

/** The server's URL: SIGNET_URL, else the stored login's, else the default. */
export function resolveUrl(): string {
  const fromEnv = process.env.SIGNET_URL?.trim()
  if (fromEnv) return normalizeServerUrl(fromEnv, 'SIGNET_URL')
  const stored = readStoredConfig()?.url
  return stored ? normalizeServerUrl(stored, configFile()) : DEFAULT_URL
}

/** The URL and API key to use: the environment first, then the stored login. */
export function resolveCredentials(): Credentials {
  const url = resolveUrl()
  const apiKey = process.env.SIGNET_API_KEY?.trim() || readStoredConfig()?.apiKey
  if (!apiKey) throw new CliError('No API key: set SIGNET_API_KEY, or run `signet login` once (the key is stored in your config directory).', EXIT.auth)
  return { url, apiKey }
}

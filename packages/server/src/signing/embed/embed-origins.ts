import { eq } from 'drizzle-orm'
import { Type, type Static } from 'typebox'
import { requireManager } from '../../accounts/roles.ts'
import type { Actor } from '../../actors/actor.ts'
import type { Db } from '../../db/client.ts'
import { orgs } from '../../db/schema.ts'
import { validationFailed } from '../../errors.ts'

/** At most this many origins per workspace: a CSP header lists every one on each embedded page. */
export const MAX_EMBED_ORIGINS = 20
const MAX_ORIGIN_LENGTH = 200
/** Plain http only where a developer runs their app: the signer's page must not be framed over the network without TLS. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])
const HOST_SHAPE = /^(?:[a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/

export const WorkspaceEmbedOrigins = Type.Object(
  {
    origins: Type.Array(Type.String({ minLength: 1, maxLength: MAX_ORIGIN_LENGTH }), {
      maxItems: MAX_EMBED_ORIGINS,
      description: `the origins (scheme://host[:port], nothing after it) whose pages may frame this workspace's embedded signer pages, at most ${MAX_EMBED_ORIGINS}; https, or http on localhost/127.0.0.1/[::1]; empty: none`,
    }),
  },
  { additionalProperties: false },
)
export type WorkspaceEmbedOrigins = Static<typeof WorkspaceEmbedOrigins>

/**
 * One origin exactly as a browser spells it (`new URL(x).origin`): a CSP source list and
 * postMessage's target origin take nothing else, so a path, a wildcard, a credential, an
 * upper-case host or a default port is refused with the spelling to use rather than rewritten.
 */
export function checkedOrigin(value: string, field: string): string {
  let url: URL | null = null
  try {
    url = new URL(value)
  } catch {
    // Reported below, with the other malformed origins.
  }
  const example = 'e.g. https://app.example.com or http://localhost:3000'
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw validationFailed(`"${value}" is not an origin: write scheme://host[:port], ${example}.`, field)
  // The URL parser lets through what a CSP source reads as a wildcard (https://*.example.com): a host is letters, digits, dots and hyphens.
  if (!HOST_SHAPE.test(url.hostname)) throw validationFailed(`"${value}" is not an origin: write scheme://host[:port] with a host name, ${example}.`, field)
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw validationFailed(`"${value}" uses plain http: an embed origin is https, or http only on localhost, 127.0.0.1 or [::1].`, field)
  }
  if (url.origin !== value) throw validationFailed(`"${value}" is not an origin: write it as ${url.origin} (scheme://host[:port], nothing after it).`, field)
  return url.origin
}

export async function embedOriginsOf(db: Db, orgId: string): Promise<string[]> {
  const [org] = await db.select({ origins: orgs.embedOrigins }).from(orgs).where(eq(orgs.id, orgId))
  return org?.origins ?? []
}

export async function workspaceEmbedOrigins(db: Db, actor: Actor): Promise<WorkspaceEmbedOrigins> {
  return { origins: await embedOriginsOf(db, actor.orgId) }
}

/** Replaces the workspace's embed origins (owners, admins and API keys); pages already open are framed by the new list from their next load. */
export async function setWorkspaceEmbedOrigins(db: Db, actor: Actor, input: WorkspaceEmbedOrigins): Promise<WorkspaceEmbedOrigins> {
  requireManager(actor, 'embedded signing settings')
  const origins = [...new Set(input.origins.map((origin, index) => checkedOrigin(origin, `/origins/${index}`)))]
  await db.update(orgs).set({ embedOrigins: origins }).where(eq(orgs.id, actor.orgId))
  return { origins }
}

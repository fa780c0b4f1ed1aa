import { eq } from 'drizzle-orm'
import { Type, type Static } from 'typebox'
import { requireManager } from '../../accounts/roles.ts'
import type { Actor } from '../../actors/actor.ts'
import type { Db } from '../../db/client.ts'
import { orgs } from '../../db/schema.ts'
import { mailLanguage, SIGNER_LANGUAGES, signerLanguageOf, type SignerLanguage } from './languages.ts'

/** A language of signer pages and e-mails, as the API takes it (extension). */
export const SignerLanguageInput = Type.Enum([...SIGNER_LANGUAGES], {
  description: `extension: the language of the signer pages and e-mails, one of ${SIGNER_LANGUAGES.join(', ')}`,
})

export const WorkspaceSignerLanguage = Type.Object(
  {
    language: Type.Union([SignerLanguageInput, Type.Null()], {
      description:
        "the language of signer pages and e-mails of documents sent from this workspace without a language of their own; null: the signer's browser decides the page, e-mails are in English",
    }),
  },
  { additionalProperties: false },
)
export type WorkspaceSignerLanguage = Static<typeof WorkspaceSignerLanguage>

/** The workspace's default as stored (null when none, or when a stored tag is no longer one of ours). */
export async function workspaceLanguageOf(db: Db, orgId: string): Promise<SignerLanguage | null> {
  const [org] = await db.select({ language: orgs.signerLanguage }).from(orgs).where(eq(orgs.id, orgId))
  return signerLanguageOf(org?.language)
}

/** The language of an e-mail about a document of `orgId` (no browser to ask): the document's, else the workspace's, else English. */
export async function mailLanguageFor(db: Db, orgId: string, documentLanguage: string | null): Promise<SignerLanguage> {
  return signerLanguageOf(documentLanguage) ?? mailLanguage(null, await workspaceLanguageOf(db, orgId))
}

export async function workspaceSignerLanguage(db: Db, actor: Actor): Promise<WorkspaceSignerLanguage> {
  return { language: await workspaceLanguageOf(db, actor.orgId) }
}

/** Sets the workspace's default (owners, admins and API keys); it applies to every document without a language of its own, sent or not. */
export async function setWorkspaceSignerLanguage(db: Db, actor: Actor, input: WorkspaceSignerLanguage): Promise<WorkspaceSignerLanguage> {
  requireManager(actor, 'signer language settings')
  await db.update(orgs).set({ signerLanguage: input.language }).where(eq(orgs.id, actor.orgId))
  return { language: input.language }
}

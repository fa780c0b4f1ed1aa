import type { Static, TObject } from 'typebox'
import type { Actor } from '../actors/actor.ts'
import type { Scope } from '../actors/scopes.ts'
import type { Services } from '../services.ts'

/** What a tool may touch: the same services as a REST route, and who is calling. */
export interface ToolContext {
  services: Services
  actor: Actor
}

/** Content a tool adds after the JSON text item: a file as an embedded resource, or an image. */
export type ExtraContent = { type: 'resource'; resource: { uri: string; mimeType: string; blob: string } } | { type: 'image'; data: string; mimeType: string }

export interface ToolOutcome<O extends TObject> {
  /** The tool's structured result; the same JSON is also its first text item. */
  structured: Static<O>
  extra?: ExtraContent[]
}

/** The MCP tool annotations, all four stated for every tool. */
export interface ToolAnnotations {
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  /** Whether the tool reaches beyond this service (mail to signers, a time-stamp authority). */
  openWorldHint: boolean
}

/**
 * One agent tool: its schemas are TypeBox objects built from the REST fields it mirrors,
 * validated by the same compiler as REST bodies, and `run` delegates to the domain
 * function the REST route calls. Domain errors (AppError) become tool errors with the REST text.
 */
export interface AgentTool<I extends TObject = TObject, O extends TObject = TObject> {
  name: string
  title: string
  description: string
  input: I
  output: O
  /** What the caller's credential must allow: read for the tools that only read, write for those that send, void or seal. */
  scope: Scope
  annotations: ToolAnnotations
  run(context: ToolContext, input: Static<I>): Promise<ToolOutcome<O>>
}

/** Declares a tool with its input type inferred from its schema. */
export const defineTool = <I extends TObject, O extends TObject>(tool: AgentTool<I, O>): AgentTool<I, O> => tool

import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ValidateFunction } from 'ajv'
import { Type, type TObject } from 'typebox'
import type { Actor } from '../actors/actor.ts'
import { hasScope, requireScope, type Scope } from '../actors/scopes.ts'
import type { Config } from '../config.ts'
import { ErrorBodySchema } from '../error-bodies.ts'
import { AppError, validationFailed } from '../errors.ts'
import { compileStrict, validationFailure } from '../lib/validation.ts'
import { publishedSchema } from './published-schema.ts'
import type { AgentTool, ToolContext, ToolOutcome } from './tool.ts'
import { agentTools } from './tools/index.ts'

interface PreparedTool {
  tool: AgentTool
  validate: ValidateFunction
}

/** The agent tools with their validators compiled and their listing built, once per server process. */
export interface Toolbox {
  listing: { scope: Scope; entry: Tool }[]
  byName: Map<string, PreparedTool>
}

export function buildToolbox(config: Pick<Config, 'pdfLimits'>): Toolbox {
  const tools = agentTools(config)
  return {
    listing: tools.map((tool) => ({
      scope: tool.scope,
      entry: {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: publishedSchema(tool.input),
        outputSchema: outputOrErrorSchema(tool),
        annotations: { title: tool.title, ...tool.annotations },
      },
    })),
    byName: new Map(tools.map((tool) => [tool.name, { tool, validate: compileStrict(tool.input) }])),
  }
}

/**
 * tools/list for a caller: only the tools its scopes allow, so an agent with a read-only key is
 * not offered tools it would be refused (a call to one by name is still refused: callTool).
 */
export const toolsFor = (toolbox: Toolbox, actor: Pick<Actor, 'scopes'>): Tool[] =>
  toolbox.listing.filter(({ scope }) => hasScope(actor, scope)).map(({ entry }) => entry)

/**
 * A tool's published outputSchema: its result, or the error body an isError result carries as
 * structuredContent. The MCP SDK's client (1.32) checks structuredContent against the
 * outputSchema even when isError is set (typescript-sdk#1943), so the schema names both.
 */
function outputOrErrorSchema(tool: AgentTool): Tool['outputSchema'] {
  return { type: 'object', anyOf: [publishedSchema(tool.output), publishedSchema(ToolErrorBody)] }
}

/** The error body of a tool result: the REST one, and a 402's upgrade fields. */
const ToolErrorBody = Type.Object(
  { ...ErrorBodySchema.properties, upgrade_url: Type.Optional(Type.String({ format: 'uri' })), upgrade: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
)

/**
 * A tool error: the text the model reads, and the REST error body as structured data a program
 * acts on. Results list their keys in CallToolResultSchema's order, the order the SDK's Server
 * sends them in, so that a tools/call answered without the Server (mcp-server.ts) has the same bytes.
 */
const errorResult = (error: AppError): CallToolResult => ({
  content: [{ type: 'text', text: describeAppError(error) }],
  structuredContent: error.body,
  isError: true,
})

/** A domain error as the agent reads it: the REST error text, and a 402's upgrade link. */
function describeAppError(error: AppError): string {
  const upgradeUrl = error.extra.upgrade_url
  return typeof upgradeUrl === 'string' ? `${error.message} Upgrade or buy credits: ${upgradeUrl}` : error.message
}

const TOOL_FAILED = new AppError('internal_error', 'The tool failed because of an error in this service; it has been logged. Try again later.')

/** A tool's result, with its structured result's JSON (the first text item, and the structuredContent). */
interface ToolSuccess {
  json: string
  outcome: ToolOutcome<TObject>
}

/**
 * Runs one tools/call. Whatever the caller got wrong (an unknown tool, a tool its scopes do not
 * allow, arguments the schema refuses, a domain refusal) is a tool result with isError: the REST
 * text, so the model can read it and correct itself, and the REST error body ({error, code,
 * field?}, field a pointer into the arguments) as structuredContent for a program. Only a defect
 * of ours is logged, and even then the agent gets a tool error rather than a broken connection.
 */
async function runTool(toolbox: Toolbox, context: ToolContext, name: string, args: unknown): Promise<ToolSuccess | CallToolResult> {
  const prepared = toolbox.byName.get(name)
  if (!prepared) {
    const names = toolsFor(toolbox, context.actor).map((tool) => tool.name)
    return errorResult(new AppError('not_found', `Unknown tool "${name}". The tools are: ${names.join(', ')}.`))
  }
  const input = args ?? {}
  try {
    // The scope first: a read-only key learns that the tool is not for it, not what its arguments lack.
    requireScope(context.actor, prepared.tool.scope, `the tool ${name}`)
    if (!prepared.validate(input)) {
      const { message, field } = validationFailure(prepared.validate.errors, '', 'argument')
      throw validationFailed(message, field)
    }
    const outcome = await prepared.tool.run(context, input as Record<string, unknown>)
    return { json: JSON.stringify(outcome.structured), outcome }
  } catch (error) {
    if (error instanceof AppError) return errorResult(error)
    context.services.logger.error({ err: error, tool: name }, 'agent tool failed')
    return errorResult(TOOL_FAILED)
  }
}

const isSuccess = (answer: ToolSuccess | CallToolResult): answer is ToolSuccess => 'outcome' in answer

/** One tools/call's result (runTool), for the SDK's Server. */
export async function callTool(toolbox: Toolbox, context: ToolContext, name: string, args: unknown): Promise<CallToolResult> {
  const answer = await runTool(toolbox, context, name, args)
  if (!isSuccess(answer)) return answer
  const { json, outcome } = answer
  return { content: [{ type: 'text', text: json }, ...(outcome.extra ?? [])], structuredContent: outcome.structured }
}

/**
 * One tools/call's result as JSON: JSON.stringify(callTool's result), without serializing the
 * structured result a second time inside it (a document's JSON is most of the answer's work).
 */
export async function callToolJson(toolbox: Toolbox, context: ToolContext, name: string, args: unknown): Promise<string> {
  const answer = await runTool(toolbox, context, name, args)
  if (!isSuccess(answer)) return JSON.stringify(answer)
  const { json, outcome } = answer
  let extra = ''
  for (const item of outcome.extra ?? []) extra += `,${JSON.stringify(item)}`
  return `{"content":[{"type":"text","text":${JSON.stringify(json)}}${extra}],"structuredContent":${json}}`
}

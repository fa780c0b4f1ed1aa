import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ValidateFunction } from 'ajv'
import type { Config } from '../config.ts'
import { AppError } from '../errors.ts'
import { compileStrict, describeValidationErrors } from '../lib/validation.ts'
import { publishedSchema } from './published-schema.ts'
import type { AgentTool, ToolContext } from './tool.ts'
import { agentTools } from './tools/index.ts'

interface PreparedTool {
  tool: AgentTool
  validate: ValidateFunction
}

/** The agent tools with their validators compiled and their listing built, once per server process. */
export interface Toolbox {
  listing: Tool[]
  byName: Map<string, PreparedTool>
}

export function buildToolbox(config: Pick<Config, 'pdfLimits'>): Toolbox {
  const tools = agentTools(config)
  return {
    listing: tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: publishedSchema(tool.input),
      outputSchema: publishedSchema(tool.output),
      annotations: { title: tool.title, ...tool.annotations },
    })),
    byName: new Map(tools.map((tool) => [tool.name, { tool, validate: compileStrict(tool.input) }])),
  }
}

const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] })

/** A domain error as the agent reads it: the REST error text, and a 402's upgrade link. */
function describeAppError(error: AppError): string {
  const upgradeUrl = error.extra.upgrade_url
  return typeof upgradeUrl === 'string' ? `${error.message} Upgrade or buy credits: ${upgradeUrl}` : error.message
}

/**
 * Runs one tools/call. Whatever the caller got wrong (an unknown tool, arguments the schema
 * refuses, a domain refusal) is a tool result with isError and the REST text, so the model
 * can read it and correct itself; only a defect of ours is logged, and even then the agent
 * gets a tool error rather than a broken connection.
 */
export async function callTool(toolbox: Toolbox, context: ToolContext, name: string, args: unknown): Promise<CallToolResult> {
  const prepared = toolbox.byName.get(name)
  if (!prepared) return errorResult(`Unknown tool "${name}". The tools are: ${[...toolbox.byName.keys()].join(', ')}.`)
  const input = args ?? {}
  if (!prepared.validate(input)) return errorResult(describeValidationErrors(prepared.validate.errors, '', 'argument'))
  try {
    const outcome = await prepared.tool.run(context, input as Record<string, unknown>)
    return {
      structuredContent: outcome.structured,
      content: [{ type: 'text', text: JSON.stringify(outcome.structured) }, ...(outcome.extra ?? [])],
    }
  } catch (error) {
    if (error instanceof AppError) return errorResult(describeAppError(error))
    context.services.logger.error({ err: error, tool: name }, 'agent tool failed')
    return errorResult('The tool failed because of an error in this service; it has been logged. Try again later.')
  }
}

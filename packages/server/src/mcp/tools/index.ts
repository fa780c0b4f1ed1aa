import type { Config } from '../../config.ts'
import type { AgentTool } from '../tool.ts'
import { createAndSendDocumentTool, getDocumentStatusTool, listDocumentsTool, voidDocumentTool } from './documents.ts'
import { getBadgeImageTool, getCertificateFileTool, getSignedFileTool } from './files.ts'
import { sealDocumentTool } from './seal.ts'
import { listTemplatesTool } from './templates.ts'
import { getUsageTool } from './usage.ts'

/** The ten agent tools, in the order tools/list gives them (the spec's order). */
export function agentTools(config: Pick<Config, 'pdfLimits'>): AgentTool[] {
  return [
    listTemplatesTool,
    createAndSendDocumentTool,
    getDocumentStatusTool,
    listDocumentsTool,
    voidDocumentTool,
    getSignedFileTool,
    sealDocumentTool(config.pdfLimits.maxBytes),
    getCertificateFileTool,
    getBadgeImageTool,
    getUsageTool,
  ] as AgentTool[]
}

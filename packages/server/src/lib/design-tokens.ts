import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** design/tokens.css at the repository's root: the colours, radii and type the dashboard and the server's pages share. */
export const DESIGN_TOKENS_PATH = fileURLToPath(new URL('../../../../design/tokens.css', import.meta.url))

let tokens: Buffer | undefined

/**
 * A page stylesheet with the shared tokens in front, served as one file: one request, one content
 * version (so a token change gives the stylesheet a new hashed URL), and nothing inline for the CSP to forbid.
 */
export function withDesignTokens(stylesheet: Buffer): Buffer {
  tokens ??= readFileSync(DESIGN_TOKENS_PATH)
  return Buffer.concat([tokens, Buffer.from('\n'), stylesheet])
}

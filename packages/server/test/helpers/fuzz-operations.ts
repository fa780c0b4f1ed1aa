import { DeclineBody, EmptyBody, FinishBody, VerifyBody } from '../../src/signing/signing.schemas.ts'
import type { JsonSchema } from './fuzz-values.ts'

/** What the API fuzz test (test/api-fuzz.test.ts) needs to know of an operation to build requests for it. */
export interface Operation {
  method: string
  /** With {name} for each path parameter, as the OpenAPI document writes it. */
  path: string
  pathParams: string[]
  query: Record<string, JsonSchema>
  body?: { contentType: string; schema: JsonSchema }
}

interface OpenApiOperation {
  parameters?: { name: string; in: string; schema: JsonSchema }[]
  requestBody?: { content: Record<string, { schema: JsonSchema }> }
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>
}

/** Every operation of the server's OpenAPI document. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => {
      const parameters = operation.parameters ?? []
      const [body] = Object.entries(operation.requestBody?.content ?? {})
      return {
        method,
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: Object.fromEntries(parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema])),
        ...(body ? { body: { contentType: body[0], schema: body[1].schema } } : {}),
      }
    }),
  )
}

const signerOperation = (method: string, path: string, body?: JsonSchema): Operation => ({
  method,
  path: `/sign/{token}${path}`,
  pathParams: ['token'],
  query: {},
  ...(body ? { body: { contentType: 'application/json', schema: body } } : {}),
})

/** The signer's pages and their script's calls: hidden from the OpenAPI document, fuzzed all the same (with the routes' own schemas). */
export const SIGNER_OPERATIONS: Operation[] = [
  signerOperation('get', ''),
  signerOperation('get', '/document.pdf'),
  signerOperation('get', '/signed.pdf'),
  signerOperation('post', '/view', EmptyBody),
  signerOperation('post', '/finish', FinishBody),
  signerOperation('post', '/decline', DeclineBody),
  signerOperation('post', '/code', EmptyBody),
  signerOperation('post', '/code/verify', VerifyBody),
]

import { readFile } from 'node:fs/promises'
import { beforeAll, describe, expect, test } from 'vitest'
import { buildOpenApiDocument, OPENAPI_COMMAND, OPENAPI_FILE } from '../scripts/openapi-document.ts'

type Paths = Record<string, Record<string, { operationId?: string }>>

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/** "get /api/v1/x" for every operation of a document. */
const operationsOf = (paths: Paths) =>
  Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => ({ route: `${method} ${path}`, operationId: operation.operationId, json: JSON.stringify(operation) })),
  )

/** Which operations were added, removed or changed between two documents (for a failure message a person can act on). */
function differences(committed: Paths, generated: Paths): string[] {
  const before = new Map(operationsOf(committed).map((o) => [o.route, o.json]))
  const after = new Map(operationsOf(generated).map((o) => [o.route, o.json]))
  const added = [...after.keys()].filter((route) => !before.has(route)).map((route) => `+ ${route}`)
  const removed = [...before.keys()].filter((route) => !after.has(route)).map((route) => `- ${route}`)
  const changed = [...after.keys()].filter((route) => before.has(route) && before.get(route) !== after.get(route)).map((route) => `~ ${route}`)
  return [...added, ...removed, ...changed]
}

let generated: string
beforeAll(async () => {
  generated = await buildOpenApiDocument()
})

describe('the committed OpenAPI document (packages/web/openapi.json)', () => {
  test('is exactly what the routes produce', async () => {
    const committed = await readFile(OPENAPI_FILE, 'utf8').catch(() => null)
    if (committed === generated) return
    const changes = committed
      ? differences((JSON.parse(committed) as { paths: Paths }).paths, (JSON.parse(generated) as { paths: Paths }).paths)
      : ['(the file is missing)']
    expect.fail(
      `packages/web/openapi.json differs from the routes. Run \`${OPENAPI_COMMAND}\` and commit the result ` +
        `(then regenerate the dashboard's client). Operations that differ:\n${changes.length > 0 ? changes.join('\n') : '(only outside paths: info, components or servers)'}`,
    )
  })

  test('names no machine: servers is the instance-relative "/"', () => {
    const document = JSON.parse(generated) as { servers: { url: string }[] }
    expect(document.servers.map((s) => s.url)).toEqual(['/'])
  })

  test('every operation has an operationId, unique and camelCase', () => {
    const operations = operationsOf((JSON.parse(generated) as { paths: Paths }).paths)
    expect(operations.length).toBeGreaterThan(30)
    expect(operations.filter((o) => !o.operationId).map((o) => o.route)).toEqual([])
    expect(operations.filter((o) => !/^[a-z][A-Za-z0-9]*$/.test(o.operationId ?? '')).map((o) => `${o.route}: ${o.operationId}`)).toEqual([])
    const seen = new Map<string, string[]>()
    for (const o of operations) seen.set(o.operationId ?? '', [...(seen.get(o.operationId ?? '') ?? []), o.route])
    expect([...seen.entries()].filter(([, routes]) => routes.length > 1)).toEqual([])
  })
})

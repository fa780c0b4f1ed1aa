// Writes packages/web/openapi.json from the server's routes (npm run openapi -w @signet/server).
import { writeFile } from 'node:fs/promises'
import { buildOpenApiDocument, OPENAPI_FILE } from './openapi-document.ts'

const document = await buildOpenApiDocument()
await writeFile(OPENAPI_FILE, document)
const paths = Object.keys((JSON.parse(document) as { paths: object }).paths).length
console.log(`Wrote ${OPENAPI_FILE} (${paths} paths).`)

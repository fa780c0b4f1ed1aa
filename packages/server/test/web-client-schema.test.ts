import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderClientSchema, SCHEMA_FILE } from '../../web/scripts/generate-client.mjs'

describe("the dashboard's typed client", () => {
  it('is generated from the committed openapi.json (run `npm run generate-client -w @signet/web` after `npm run openapi -w @signet/server`)', async () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(await renderClientSchema())
  })
})

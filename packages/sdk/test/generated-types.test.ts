import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { renderSdkSchema, SDK_SCHEMA_FILE } from '../scripts/generate.mjs'

test('src/generated/openapi.ts is what the committed openapi.json generates', async () => {
  const committed = readFileSync(SDK_SCHEMA_FILE, 'utf8')
  expect(committed === (await renderSdkSchema()), 'packages/sdk/src/generated/openapi.ts is stale: run `npm run generate -w @signet/sdk` and commit it').toBe(
    true,
  )
})

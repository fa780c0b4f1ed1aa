import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DASHBOARD_DIST } from '../src/http/routes/dashboard.ts'
import { DESIGN_TOKENS_PATH } from '../src/lib/design-tokens.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/*
 * design/tokens.css is the one source of the colours, radii and type of the dashboard and of the
 * server's pages. These checks fail when either side stops using it or keeps a stale copy.
 */

const DASHBOARD_STYLES = new URL('../../web/src/styles.css', import.meta.url)
const tokensCss = readFileSync(DESIGN_TOKENS_PATH, 'utf8')

/** `--signet-x: value;` declarations as [name, value], whitespace collapsed as a minifier would. */
function declarationsOf(css: string): [string, string][] {
  return [...css.matchAll(/(--signet-[a-z0-9-]+)\s*:\s*([^;}]+)/g)].map(([, name = '', value = '']) => [name, value.replace(/\s+/g, ' ').trim()])
}
const tokens = declarationsOf(tokensCss)

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

describe('the shared design tokens', () => {
  it('name the colours, radii and fonts', () => {
    expect(tokens.map(([name]) => name)).toEqual(expect.arrayContaining(['--signet-brand-600', '--signet-ink', '--signet-radius-lg', '--signet-font-sans']))
  })

  it.each([
    ['the signer pages', '/sign-assets/sign.css'],
    ['the verify page', '/verify-assets/verify.css'],
  ])('lead the stylesheet of %s, which uses them', async (_label, path) => {
    const response = await server.request(path)
    expect(response.status).toBe(200)
    const css = await response.text()
    expect(css.startsWith(tokensCss)).toBe(true)
    expect(css.slice(tokensCss.length)).toMatch(/var\(--signet-brand-700\)/)
  })

  it('are the values in the dashboard’s built stylesheet', () => {
    const assets = join(DASHBOARD_DIST, 'assets')
    if (!existsSync(assets)) throw new Error('packages/web/dist is missing: run `npm run build -w @signet/web` (npm test does it)')
    const built = readdirSync(assets)
      .filter((name) => name.endsWith('.css'))
      .map((name) => readFileSync(join(assets, name), 'utf8'))
      .join('\n')
    expect(Object.fromEntries(declarationsOf(built)), 'the built dashboard is stale or keeps its own copy: npm run build -w @signet/web').toEqual(
      Object.fromEntries(tokens),
    )
  })

  it('are all the dashboard’s theme refers to: no colour, radius or font of its own', () => {
    const styles = readFileSync(DASHBOARD_STYLES, 'utf8')
    const theme = /@theme\s*{([^}]*)}/.exec(styles)?.[1] ?? ''
    const values = [...theme.matchAll(/--[a-z0-9-]+\s*:\s*([^;]+);/g)].map(([, value]) => value)
    expect(values.length).toBeGreaterThan(0)
    const known = new Set(tokens.map(([name]) => name))
    expect(values.filter((value) => !/^var\(--signet-[a-z0-9-]+\)$/.test(value ?? '') || !known.has(value?.slice(4, -1) ?? ''))).toEqual([])
  })
})

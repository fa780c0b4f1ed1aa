import { describe, expect, it } from 'vitest'
import { appPathOf } from './search.ts'

describe("the login page's next", () => {
  it.each([
    ['/settings/billing?period=2026-01', '/settings/billing?period=2026-01'],
    ['/oauth/consent/abc', '/oauth/consent/abc'],
    ['/app/oauth/consent/abc', '/oauth/consent/abc'],
    ['/app/', '/'],
    ['/app', '/'],
    ['/app?x=1', '/?x=1'],
    ['/application', '/application'],
  ])('%s opens %s inside the app', (next, path) => {
    expect(appPathOf(next)).toBe(path)
  })

  it.each([undefined, '', 'settings', 'https://evil.example/', '//evil.example/app', '/\\evil.example', 'javascript:alert(1)'])(
    '%s is not followed',
    (next) => {
      expect(appPathOf(next)).toBeUndefined()
    },
  )
})

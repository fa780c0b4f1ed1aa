import { defineProject } from 'vitest/config'

export default defineProject({
  test: { name: '@signet/vocabulary', include: ['test/**/*.test.ts'] },
})

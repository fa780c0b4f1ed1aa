import { defineConfig } from 'drizzle-kit'

// `npx drizzle-kit generate` writes a new SQL migration after a schema change.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
})

/** Where the generated client schema lives (src/api/schema.d.ts). */
export const SCHEMA_FILE: string
/** The text schema.d.ts must have for the current openapi.json. */
export function renderClientSchema(): Promise<string>

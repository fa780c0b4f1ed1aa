/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'example', 'examples'])
/** Keywords whose values map names to schemas (a property may well be called "default"). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])

export type SchemaObject = Record<string, unknown>

export const isSchemaObject = (value: unknown): value is SchemaObject => value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * A copy of a JSON Schema with `rewrite` applied to every schema in it, the innermost first: it
 * gets the copy (its subschemas already rewritten) and the schema as written. Data (enum, const,
 * default, examples) is copied as it is. Copied, so that the schema as written (the OpenAPI
 * document's) is left alone.
 */
export function rewriteSchema(schema: unknown, rewrite: (copy: SchemaObject, original: SchemaObject) => SchemaObject): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rewriteSchema(item, rewrite))
  if (!isSchemaObject(schema)) return schema
  const copy: SchemaObject = {}
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(key)) copy[key] = value
    else if (SCHEMA_MAPS.has(key) && isSchemaObject(value))
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, rewriteSchema(item, rewrite)]))
    else copy[key] = rewriteSchema(value, rewrite)
  }
  return rewrite(copy, schema)
}

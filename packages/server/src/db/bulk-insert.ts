import { sql, type SQL } from 'drizzle-orm'
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core'
import type { Db } from './client.ts'

/**
 * INSERT of many rows as one array parameter per column (`SELECT * FROM unnest(...)`).
 * A VALUES list costs a bound parameter per cell — and query building per cell in
 * Drizzle — which is most of the time of a bulk-send batch; this costs one per column.
 * Every row must set the same columns; the others take their defaults.
 */
export async function insertMany<T extends PgTable>(tx: Db, table: T, rows: T['$inferInsert'][]): Promise<void> {
  const first = rows[0]
  if (!first) return
  const config = getTableConfig(table)
  const keys = Object.keys(first)
  const columns = keys.map((key) => {
    const column = (table as unknown as Record<string, (typeof config.columns)[number] | undefined>)[key]
    if (!column) throw new Error(`${config.name} has no column ${key}`)
    return column
  })
  const names = sql.join(
    columns.map((c) => sql.identifier(c.name)),
    sql`, `,
  )
  const arrays: SQL[] = keys.map((key, i) => {
    const type = columns[i]?.getSQLType() ?? 'text'
    const values = rows.map((row) => toParam((row as Record<string, unknown>)[key]))
    return sql`${sql.param(values)}::${sql.raw(type)}[]`
  })
  await tx.execute(sql`insert into ${sql.identifier(config.name)} (${names}) select * from unnest(${sql.join(arrays, sql`, `)})`)
}

function toParam(value: unknown): unknown {
  if (value === undefined) return null
  if (value instanceof Date) return value.toISOString()
  if (value !== null && typeof value === 'object') return JSON.stringify(value)
  return value
}

import type { Db } from '../db/client.ts'

/**
 * A hot query, built and prepared once per database handle (named on PostgreSQL, so the
 * server parses and plans it once per connection). Only for the root handle, never a transaction.
 */
export function preparedPer<T>(build: (db: Db) => T): (db: Db) => T {
  const byDb = new WeakMap<Db, T>()
  return (db) => {
    let prepared = byDb.get(db)
    if (!prepared) {
      prepared = build(db)
      byDb.set(db, prepared)
    }
    return prepared
  }
}

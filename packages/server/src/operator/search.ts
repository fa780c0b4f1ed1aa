import { sql, type SQL } from 'drizzle-orm'

/** An ILIKE pattern that finds `search` anywhere, its own % and _ taken literally. */
export const containsPattern = (search: string): string => `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`

/** The total of a list query's matches, as a number on both drivers (count(*) is a bigint). */
export const countAll = (): SQL<number> => sql<number>`count(*)::int`

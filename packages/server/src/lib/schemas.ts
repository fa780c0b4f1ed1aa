import { Type } from 'typebox'

/** A list offset. Capped where integers stay exact; a larger one overflows the database's bigint (a 500). */
export const Offset = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO-8601 UTC with milliseconds' })
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()])

import { Type, type TSchema } from 'typebox'
import { ErrorBody } from '../error-bodies.ts'

/** Every error body of the API (error-bodies.ts). */
export { ErrorBody, PaymentRequiredBody } from '../error-bodies.ts'

const error = (description: string) => ({ ...ErrorBody, description })

/** The responses every authenticated route can give, added to each route's own. */
export const COMMON_ERROR_RESPONSES = {
  401: error('Missing or invalid API key'),
  429: error('Rate limit exceeded for this route'),
}

/** A route's responses: its own plus 401 and 429. */
export const withCommonErrors = <R extends Record<number, TSchema>>(responses: R): R & typeof COMMON_ERROR_RESPONSES => ({
  ...responses,
  ...COMMON_ERROR_RESPONSES,
})

export const DocumentIdParams = Type.Object({ id: Type.String({ description: 'a document id returned by create (UUID)' }) }, { additionalProperties: false })

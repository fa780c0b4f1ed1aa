import { Type } from 'typebox'

/** A document id as the agent tools take it: the id create_and_send_document or seal_document returned. */
export const DocumentIdInput = Type.Object(
  { document_id: Type.String({ format: 'uuid', description: 'the document_id that create_and_send_document or seal_document returned' }) },
  { additionalProperties: false },
)

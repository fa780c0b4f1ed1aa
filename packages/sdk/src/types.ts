import type { paths } from './generated/openapi.ts'

/** The JSON body of one answer of an operation in the generated types. */
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never

type Get<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never
type Post<P extends keyof paths> = paths[P] extends { post: infer O } ? O : never

export type Document = JsonOf<Get<'/documents/{id}'>['responses'][200]>
export type DocumentStatus = Document['status']
export type DocumentList = JsonOf<Get<'/documents'>['responses'][200]>
export type DocumentListItem = DocumentList['documents'][number]
export type ListDocumentsQuery = Omit<QueryOf<Get<'/documents'>>, 'offset'>
export type DocumentCounts = JsonOf<Get<'/documents/counts'>['responses'][200]>
export type DocumentCountsQuery = QueryOf<Get<'/documents/counts'>>
export type CreateDocumentBody = BodyOf<Post<'/documents'>>
export type CreatedDocument = JsonOf<Post<'/documents'>['responses'][201]>
export type DocumentAudit = JsonOf<Get<'/documents/{id}/audit'>['responses'][200]>
export type VoidResult = JsonOf<Post<'/documents/{id}/void'>['responses'][200]>
export type ResendAccepted = JsonOf<Post<'/documents/{id}/signers/{signerId}/resend'>['responses'][202]>
export type EmbedRequest = BodyOf<Post<'/documents/{id}/signers/{signerId}/embed'>>
export type EmbedUrl = JsonOf<Post<'/documents/{id}/signers/{signerId}/embed'>['responses'][201]>
export type BulkSendBody = BodyOf<Post<'/documents/bulk-send'>>
export type BulkSendResult = JsonOf<Post<'/documents/bulk-send'>['responses'][201]>

export type TemplateList = JsonOf<Get<'/templates'>['responses'][200]>
export type TemplateListItem = TemplateList['templates'][number]
export type Template = JsonOf<Get<'/templates/{id}'>['responses'][200]>

export type Seal = JsonOf<Get<'/seals/{id}'>['responses'][200]>
export type SealOptions = QueryOf<Post<'/seals'>>

export type Usage = JsonOf<Get<'/usage'>['responses'][200]>
export type UsageQuery = QueryOf<Get<'/usage'>>

export type WebhookEndpoint = JsonOf<Get<'/webhooks'>['responses'][200]>['webhooks'][number]
export type CreateWebhookBody = BodyOf<Post<'/webhooks'>>
export type WebhookCreated = JsonOf<Post<'/webhooks'>['responses'][201]>
export type UpdateWebhookBody = paths['/webhooks/{id}'] extends { patch: infer O } ? BodyOf<O> : never
export type WebhookSecret = JsonOf<Post<'/webhooks/{id}/rotate-secret'>['responses'][200]>
export type WebhookTestResult = JsonOf<Post<'/webhooks/{id}/test'>['responses'][200]>
export type DeliveryList = JsonOf<Get<'/webhooks/{id}/deliveries'>['responses'][200]>
export type Delivery = DeliveryList['deliveries'][number]
export type Redelivery = JsonOf<Post<'/webhooks/{id}/deliveries/{deliveryId}/redeliver'>['responses'][202]>

/** The body of a webhook delivery for a document event (the OpenAPI document does not describe webhook bodies). */
export interface DocumentWebhookEvent {
  event: 'document.viewed' | 'document.signed' | 'document.completed' | 'document.declined'
  occurred_at: string
  document_id: string
  title: string
  /** The document's status when the event happened. */
  status: 'sent' | 'completed' | 'declined'
  /** Who viewed, signed or declined; absent on document.completed. */
  signer?: { email: string; name: string | null }
  /** Set on events made up by `signet trigger` for the live event stream. */
  test?: true
}

/** The body of the endpoint test (POST /webhooks/{id}/test). */
export interface TestWebhookEvent {
  event: 'test'
  occurred_at: string
  webhook_endpoint_id: string
  message: string
}

export type WebhookEvent = DocumentWebhookEvent | TestWebhookEvent

import { Type } from 'typebox'
import { createDocument } from '../../documents/create-document.ts'
import {
  CreateDocumentBody,
  DocumentList,
  DocumentView,
  Email,
  ListDocumentsQuery,
  MultiPartyCreated,
  PartySigners,
  SignerName,
  SingleSignerCreated,
  VoidResult,
} from '../../documents/documents.schemas.ts'
import { getDocument } from '../../documents/get-document.ts'
import { expiresBeforeOf, listDocuments } from '../../documents/list-documents.ts'
import { voidDocument } from '../../documents/void-document.ts'
import { AppError, invalid } from '../../errors.ts'
import { defineTool } from '../tool.ts'
import { DocumentIdInput } from './inputs.ts'

const create = CreateDocumentBody.properties

const CreateAndSendInput = Type.Object(
  {
    template_id: Type.String({ format: 'uuid', description: 'from list_templates' }),
    title: create.title,
    signer_email: Type.Optional({ ...Email, description: 'the one signer of a single-role template' }),
    signer_name: SignerName,
    auth_required: Type.Optional(
      Type.Boolean({ description: 'with signer_email: the signer must enter a one-time code e-mailed to them before the document opens (default false)' }),
    ),
    signers: Type.Optional({ ...PartySigners, description: 'for a template with several roles: one signer per role, instead of signer_email' }),
    expires_at: create.expires_at,
    invite_subject: Type.Optional({ ...create.invite_subject, description: 'subject of the invitation e-mail (default: "<org> sent you <title> to sign")' }),
    invite_message: Type.Optional({ ...create.invite_message, description: 'a personal message shown in the invitation e-mail' }),
    reminders: create.reminders,
    cc: create.cc,
    fields: create.fields,
    language: create.language,
  },
  { additionalProperties: false, description: 'Exactly one of signer_email and signers.' },
)

const NEXT_STEP =
  'Each signer must still open the link e-mailed to them and sign; call get_document_status to follow progress and get_signed_file once the status is completed.'

const CreatedOutput = Type.Object(
  {
    document_id: Type.String({ format: 'uuid' }),
    status: Type.Literal('sent'),
    expires_at: SingleSignerCreated.properties.expires_at,
    auth_required: Type.Optional(SingleSignerCreated.properties.auth_required),
    signers: Type.Optional(MultiPartyCreated.properties.signers),
    domain_warning: SingleSignerCreated.properties.domain_warning,
    domain_warnings: MultiPartyCreated.properties.domain_warnings,
    note: Type.String(),
  },
  { additionalProperties: false },
)

export const createAndSendDocumentTool = defineTool({
  name: 'create_and_send_document',
  title: 'Create a document from a template and send it for signature',
  description:
    "Creates a document from one of the organization's templates (find template_id with list_templates) and e-mails each signer a personal signing link. " +
    'Give signer_email (and signer_name) for a template with one role, or `signers` with one entry per role for a multi-party template. ' +
    'To have them sign one after another, give each of `signers` an `order` (1, 2, 3…; equal numbers sign in parallel): only the first step is e-mailed, each next one when the step before has signed. ' +
    "Without any `order`, a template with default steps (list_templates' role_names) uses them; `order: null` on every signer invites everyone at once instead. " +
    'It does not sign anything: each signer must open the e-mailed link and sign themselves. ' +
    'Returns document_id (status "sent"); follow it with get_document_status, cancel it with void_document, and fetch the result with get_signed_file once completed. ' +
    "Counts against the plan's monthly allowance for agent-tool sends.",
  input: CreateAndSendInput,
  output: CreatedOutput,
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: async ({ services, actor }, input) => {
    const { signer_email, signer_name, auth_required, signers, ...rest } = input
    if ((signer_email === undefined) === (signers === undefined)) {
      throw invalid('Provide either signer_email (a template with one role) or signers (one per role of a multi-party template), not both.')
    }
    if (signers !== undefined && (signer_name !== undefined || auth_required !== undefined)) {
      throw invalid('signer_name and auth_required go with signer_email; with signers, give name and auth_required on each signer.', {
        field: signer_name !== undefined ? '/signer_name' : '/auth_required',
      })
    }
    const signer = signer_email === undefined ? undefined : { email: signer_email, name: signer_name, auth_required }
    try {
      const { id, ...created } = await createDocument(services, actor, { ...rest, ...(signer ? { signer } : { signers }) })
      return { structured: { document_id: id, ...created, note: NEXT_STEP } }
    } catch (error) {
      throw error instanceof AppError ? pointedAtArguments(error) : error
    }
  },
})

/** The REST body's `signer` object as this tool's flat arguments. */
const ARGUMENT_OF_SIGNER_FIELD: Record<string, string> = {
  '/signer': '/signer_email',
  '/signer/email': '/signer_email',
  '/signer/name': '/signer_name',
  '/signer/auth_required': '/auth_required',
}

/** A refusal of createDocument, its field (a pointer into the REST body) made a pointer into the tool's arguments. */
function pointedAtArguments(error: AppError): AppError {
  const argument = error.field === undefined ? undefined : ARGUMENT_OF_SIGNER_FIELD[error.field]
  return argument ? new AppError(error.code, error.message, error.extra, error.headers, argument) : error
}

export const getDocumentStatusTool = defineTool({
  name: 'get_document_status',
  title: "Get a document's status",
  description:
    "Reads one document by document_id: its status (sent, completed, declined, voided, expired), timestamps, and each signer's status and signing time. " +
    'When status is completed and signed_pdf_status is ready, call get_signed_file.',
  input: DocumentIdInput,
  output: DocumentView,
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async ({ services, actor }, { document_id }) => ({ structured: await getDocument(services.db, actor, document_id) }),
})

export const listDocumentsTool = defineTool({
  name: 'list_documents',
  title: 'List documents',
  description:
    "Lists the organization's documents, newest first, optionally only those with one status or matching a search (title or signer e-mail). Use it to find a document_id; " +
    'page with limit and offset while has_more is true. Self-sealed documents are hidden from status=completed unless include_self_sealed is true.',
  input: ListDocumentsQuery,
  output: DocumentList,
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async ({ services, actor }, { status, search, include_self_sealed = false, expires_before, limit = 20, offset = 0 }) => ({
    structured: await listDocuments(services.db, actor, {
      status,
      search,
      includeSelfSealed: include_self_sealed,
      expiresBefore: expiresBeforeOf(expires_before),
      limit,
      offset,
    }),
  }),
})

export const voidDocumentTool = defineTool({
  name: 'void_document',
  title: 'Void a document',
  description:
    'Cancels a document that is still out for signature (status "sent"): its signing links stop working and signers who have not signed are told by e-mail. ' +
    'It cannot be undone; a completed, declined, expired or already voided document cannot be voided.',
  input: DocumentIdInput,
  output: VoidResult,
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  run: async ({ services, actor }, { document_id }) => ({ structured: await voidDocument(services, actor, document_id) }),
})

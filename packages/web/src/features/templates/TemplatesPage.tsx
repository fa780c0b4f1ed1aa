import { useQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { ApiError } from '../../api/client.ts'
import { Badge, Button, ConfirmDialog, EmptyState, Field, FormDialog, Input, PageHeader, QueryView, useToast } from '../../components/index.ts'
import { formatDateTime } from '../../lib/format.ts'
import { fieldErrorText } from '../../lib/people-text.ts'
import { PlanAwareError } from '../send/PlanAwareError.tsx'
import { PdfChooser, PdfDropZone, usePdfDrop } from './PdfDropZone.tsx'
import { templatesQuery, useDeleteTemplate, useDuplicateTemplate, useRenameTemplate, useUploadTemplate, type TemplateSummary } from './queries.ts'

const partiesText = (roles: number[]) => (roles.length === 1 ? '1 signer' : `${roles.length} signers`)

/** /app/templates: upload a PDF (dropped anywhere on the page, or chosen), and edit, send, rename, duplicate or delete the templates there are. */
export function TemplatesPage() {
  const templates = useQuery(templatesQuery)
  const [file, setFile] = useState<File | null>(null)
  const drop = usePdfDrop(setFile)
  const [renaming, setRenaming] = useState<TemplateSummary | null>(null)
  const [deleting, setDeleting] = useState<TemplateSummary | null>(null)
  const toast = useToast()
  const duplicate = useDuplicateTemplate()
  const remove = useDeleteTemplate()

  return (
    <div {...drop.handlers}>
      <PageHeader
        title="Templates"
        description="A template is a PDF with the fields each signer fills in. Upload a PDF, then place its fields."
        actions={<PdfChooser chosen={file} onChoose={drop.take} />}
      />
      <PdfDropZone dragging={drop.dragging} chosen={file} refusal={drop.refusal}>
        {file && <UploadTemplate key={`${file.name}-${file.lastModified}`} file={file} />}
      </PdfDropZone>
      {duplicate.error && <PlanAwareError error={duplicate.error} title="The template was not duplicated" />}
      <div className="mt-6">
        <QueryView query={templates} loadingLabel="Loading templates…" errorTitle="Templates could not be loaded">
          {(data) =>
            data.templates.length === 0 ? (
              <EmptyState title="No templates yet" description="Upload a PDF above to make your first template." />
            ) : (
              <ul aria-label="Templates" className="divide-y divide-line rounded-lg border border-line bg-white">
                {data.templates.map((template) => (
                  <TemplateRow
                    key={template.id}
                    template={template}
                    duplicating={duplicate.isPending && duplicate.variables === template.id}
                    onRename={() => setRenaming(template)}
                    onDuplicate={() =>
                      duplicate.mutate(template.id, { onSuccess: (copy) => toast({ title: `Duplicated as “${copy.name}”`, tone: 'success' }) })
                    }
                    onDelete={() => setDeleting(template)}
                  />
                ))}
              </ul>
            )
          }
        </QueryView>
      </div>
      {renaming && <RenameDialog template={renaming} onClose={() => setRenaming(null)} />}
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title={`Delete “${deleting?.name ?? ''}”?`}
        description="It disappears from your templates and can no longer be sent. Documents already sent from it are kept."
        confirmLabel="Delete template"
        destructive
        onConfirm={async () => {
          if (!deleting) return
          await remove.mutateAsync(deleting.id)
          toast({ title: 'Template deleted', tone: 'success' })
        }}
      />
    </div>
  )
}

interface TemplateRowProps {
  template: TemplateSummary
  duplicating: boolean
  onRename: () => void
  onDuplicate: () => void
  onDelete: () => void
}

/** One template: what it is on the left, its actions on the right (below it on a phone). A template without fields cannot be sent yet. */
function TemplateRow({ template, duplicating, onRename, onDuplicate, onDelete }: TemplateRowProps) {
  const noFields = template.roles.length === 0
  const reasonId = `no-fields-${template.id}`
  return (
    <li className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center sm:justify-between">
      <div className="min-w-0">
        <p className="flex flex-wrap items-center gap-2 font-medium [overflow-wrap:anywhere]">
          {template.name}
          {noFields && (
            <Badge tone="warning">
              <span id={reasonId}>No fields yet</span>
            </Badge>
          )}
        </p>
        <p className="mt-0.5 text-sm text-muted">
          {template.page_count === 1 ? '1 page' : `${template.page_count} pages`}
          {noFields ? '' : ` · ${partiesText(template.roles)}`} · added {formatDateTime(template.created_at)}
        </p>
      </div>
      <div className="flex flex-wrap gap-1 sm:shrink-0 sm:justify-end">
        <Button asChild size="sm" variant="secondary">
          <Link to="/templates/$id" params={{ id: template.id }} aria-label={`Edit the fields of ${template.name}`}>
            Edit fields
          </Link>
        </Button>
        {noFields ? (
          <Button size="sm" variant="secondary" disabled aria-describedby={reasonId} aria-label={`Send ${template.name}: place its fields first`}>
            Send
          </Button>
        ) : (
          <Button asChild size="sm" variant="secondary">
            <Link to="/send" search={{ template: template.id }} aria-label={`Send ${template.name}`}>
              Send
            </Link>
          </Button>
        )}
        <Button size="sm" variant="ghost" onClick={onRename} aria-label={`Rename ${template.name}`}>
          Rename
        </Button>
        <Button size="sm" variant="ghost" loading={duplicating} onClick={onDuplicate} aria-label={`Duplicate ${template.name}`}>
          Duplicate
        </Button>
        <Button size="sm" variant="danger-secondary" onClick={onDelete} aria-label={`Delete ${template.name}`}>
          Delete
        </Button>
      </div>
    </li>
  )
}

/** The chosen PDF's name (the file's name by default) and the upload, which then opens the field editor. */
function UploadTemplate({ file }: { file: File }) {
  const [name, setName] = useState(file.name.replace(/\.pdf$/i, ''))
  const navigate = useNavigate()
  const upload = useUploadTemplate()
  // A refusal of the name goes under it; any other (not a PDF, too large, the plan's limit) below the form.
  const nameRefused = upload.error instanceof ApiError && upload.error.field === '/name'
  const submit = (event: FormEvent) => {
    event.preventDefault()
    upload.mutate(
      { name: name.trim() || file.name.replace(/\.pdf$/i, ''), file },
      { onSuccess: (template) => void navigate({ to: '/templates/$id', params: { id: template.id } }) },
    )
  }
  return (
    <form onSubmit={submit} className="mx-auto mt-4 max-w-xl" aria-label="Upload a template">
      <div className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
        <Field label="Template name" error={nameRefused ? fieldErrorText(upload.error) : null}>
          <Input value={name} maxLength={200} onChange={(event) => setName(event.target.value)} placeholder="e.g. Consulting agreement" />
        </Field>
        <Button type="submit" loading={upload.isPending}>
          Upload
        </Button>
      </div>
      {upload.error && !nameRefused && <PlanAwareError error={upload.error} title="The PDF was not uploaded" />}
    </form>
  )
}

function RenameDialog({ template, onClose }: { template: TemplateSummary; onClose: () => void }) {
  const [name, setName] = useState(template.name)
  const rename = useRenameTemplate()
  return (
    <FormDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title="Rename template"
      formId="rename-template"
      submitLabel="Rename"
      pending={rename.isPending}
      submitDisabled={name.trim() === ''}
      onSubmit={() => rename.mutate({ id: template.id, name: name.trim() }, { onSuccess: onClose })}
    >
      <Field label="Name" error={fieldErrorText(rename.error)}>
        <Input value={name} maxLength={200} onChange={(event) => setName(event.target.value)} />
      </Field>
    </FormDialog>
  )
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { Badge, Button, ConfirmDialog, EmptyState, Field, FormDialog, Input, PageHeader, QueryView, useToast } from '../../components/index.ts'
import { formatDateTime } from '../../lib/format.ts'
import { PlanAwareError } from '../send/PlanAwareError.tsx'
import { PdfDropZone, usePdfDrop } from './PdfDropZone.tsx'
import { deleteTemplate, duplicateTemplate, renameTemplate, templatesQuery, uploadTemplate, type TemplateSummary } from './templates-api.ts'

const partiesText = (roles: number[]) => (roles.length === 1 ? '1 signer' : `${roles.length} signers`)

/** /app/templates: upload a PDF (dropped anywhere on the page, or chosen), and edit, send, rename, duplicate or delete the templates there are. */
export function TemplatesPage() {
  const templates = useQuery(templatesQuery)
  const [file, setFile] = useState<File | null>(null)
  const drop = usePdfDrop(setFile)
  const [renaming, setRenaming] = useState<TemplateSummary | null>(null)
  const [deleting, setDeleting] = useState<TemplateSummary | null>(null)
  const queryClient = useQueryClient()
  const toast = useToast()
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['templates'] })
  const duplicate = useMutation({
    mutationFn: duplicateTemplate,
    onSuccess: (copy) => {
      void refresh()
      toast({ title: `Duplicated as “${copy.name}”`, tone: 'success' })
    },
  })

  return (
    <div {...drop.handlers}>
      <PageHeader title="Templates" description="A template is a PDF with the fields each signer fills in. Upload a PDF, then place its fields." />
      <PdfDropZone dragging={drop.dragging} chosen={file} refusal={drop.refusal} onChoose={drop.take}>
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
                    onDuplicate={() => duplicate.mutate(template.id)}
                    onDelete={() => setDeleting(template)}
                  />
                ))}
              </ul>
            )
          }
        </QueryView>
      </div>
      {renaming && <RenameDialog template={renaming} onClose={() => setRenaming(null)} onRenamed={() => void refresh()} />}
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title={`Delete “${deleting?.name ?? ''}”?`}
        description="It disappears from your templates and can no longer be sent. Documents already sent from it are kept."
        confirmLabel="Delete template"
        destructive
        onConfirm={async () => {
          if (!deleting) return
          await deleteTemplate(deleting.id)
          await refresh()
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
        <Button asChild size="sm" variant={noFields ? 'primary' : 'secondary'}>
          <Link to="/templates/$id" params={{ id: template.id }} aria-label={`Edit the fields of ${template.name}`}>
            Edit fields
          </Link>
        </Button>
        {noFields ? (
          <Button size="sm" variant="secondary" disabled aria-describedby={reasonId} aria-label={`Send ${template.name}: place its fields first`}>
            Send
          </Button>
        ) : (
          <Button asChild size="sm" variant="primary">
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
  const queryClient = useQueryClient()
  const upload = useMutation({
    mutationFn: ({ name, file }: { name: string; file: File }) => uploadTemplate(name, file),
    onSuccess: (template) => {
      void queryClient.invalidateQueries({ queryKey: ['templates'] })
      void navigate({ to: '/templates/$id', params: { id: template.id } })
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    upload.mutate({ name: name.trim() || file.name.replace(/\.pdf$/i, ''), file })
  }
  return (
    <form onSubmit={submit} className="mx-auto mt-4 max-w-xl" aria-label="Upload a template">
      <div className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
        <Field label="Template name">
          <Input value={name} maxLength={200} onChange={(event) => setName(event.target.value)} placeholder="e.g. Consulting agreement" />
        </Field>
        <Button type="submit" loading={upload.isPending}>
          Upload
        </Button>
      </div>
      {upload.error && <PlanAwareError error={upload.error} title="The PDF was not uploaded" />}
    </form>
  )
}

function RenameDialog({ template, onClose, onRenamed }: { template: TemplateSummary; onClose: () => void; onRenamed: () => void }) {
  const [name, setName] = useState(template.name)
  const rename = useMutation({
    mutationFn: () => renameTemplate(template.id, name.trim()),
    onSuccess: () => {
      onRenamed()
      onClose()
    },
  })
  return (
    <FormDialog
      open
      onOpenChange={(open) => !open && onClose()}
      title="Rename template"
      formId="rename-template"
      submitLabel="Rename"
      pending={rename.isPending}
      submitDisabled={name.trim() === ''}
      onSubmit={() => rename.mutate()}
    >
      <Field label="Name" error={rename.error ? rename.error.message : null}>
        <Input value={name} maxLength={200} onChange={(event) => setName(event.target.value)} />
      </Field>
    </FormDialog>
  )
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useRef, useState, type FormEvent } from 'react'
import { ActionsTh, Button,  ConfirmDialog, EmptyState, Field, FormDialog, Input, PageHeader, QueryView, Table, TBody, Td, Th, THead, Tr, useToast } from '../../components/index.ts'
import { formatDateTime } from '../../lib/format.ts'
import { PlanAwareError } from '../send/PlanAwareError.tsx'
import { deleteTemplate, duplicateTemplate, renameTemplate, templatesQuery, uploadTemplate, type TemplateSummary } from './templates-api.ts'

const partiesText = (roles: number[]) => (roles.length === 0 ? 'No fields' : roles.length === 1 ? '1 signer' : `${roles.length} signers`)

/** /app/templates: upload a PDF, and rename, duplicate, delete or edit the templates there are. */
export function TemplatesPage() {
  const templates = useQuery(templatesQuery)
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
    <>
      <PageHeader title="Templates" description="A template is a PDF with the fields each signer fills in. Upload a PDF, then place its fields." />
      <UploadTemplate />
      {duplicate.error && <PlanAwareError error={duplicate.error} title="The template was not duplicated" />}
      <div className="mt-6">
        <QueryView query={templates} loadingLabel="Loading templates…" errorTitle="Templates could not be loaded">
          {(data) =>
            data.templates.length === 0 ? (
              <EmptyState title="No templates yet" description="Upload a PDF above to make your first template." />
            ) : (
              <Table caption="Templates">
                <THead>
                  <Tr>
                    <Th>Name</Th>
                    <Th>Pages</Th>
                    <Th>Signers</Th>
                    <Th>Created</Th>
                    <ActionsTh />
                  </Tr>
                </THead>
                <TBody>
                  {data.templates.map((template) => (
                    <Tr key={template.id}>
                      <Td className="min-w-44 font-medium">
                        <Link to="/templates/$id" params={{ id: template.id }} className="text-brand-700 underline">
                          {template.name}
                        </Link>
                      </Td>
                      <Td>{template.page_count}</Td>
                      <Td>{partiesText(template.roles)}</Td>
                      <Td className="whitespace-nowrap">{formatDateTime(template.created_at)}</Td>
                      <Td>
                        <div className="flex flex-wrap justify-end gap-1">
                          <Button asChild size="sm" variant="secondary">
                            <Link to="/send" search={{ template: template.id }}>
                              Send
                            </Link>
                          </Button>
                          <Button size="sm" variant="ghost" onClick={() => setRenaming(template)} aria-label={`Rename ${template.name}`}>
                            Rename
                          </Button>
                          <Button
                            size="sm"
                            variant="ghost"
                            loading={duplicate.isPending && duplicate.variables === template.id}
                            onClick={() => duplicate.mutate(template.id)}
                            aria-label={`Duplicate ${template.name}`}
                          >
                            Duplicate
                          </Button>
                          <Button size="sm" variant="ghost" className="text-red-700" onClick={() => setDeleting(template)} aria-label={`Delete ${template.name}`}>
                            Delete
                          </Button>
                        </div>
                      </Td>
                    </Tr>
                  ))}
                </TBody>
              </Table>
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
    </>
  )
}

/** Choose a PDF, name it (the file's name by default), upload, then go place its fields. */
function UploadTemplate() {
  const [file, setFile] = useState<File | null>(null)
  const [name, setName] = useState('')
  const input = useRef<HTMLInputElement>(null)
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
    if (file) upload.mutate({ name: name.trim() || file.name.replace(/\.pdf$/i, ''), file })
  }
  return (
    <form onSubmit={submit} className="rounded-lg border border-line bg-white p-4" aria-label="Upload a template">
      <h2 className="mb-3 text-base font-semibold">Upload a PDF</h2>
      <div className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
        <Field label="PDF file">
          <Input
            ref={input}
            type="file"
            accept="application/pdf,.pdf"
            className="py-1.5"
            onChange={(event) => {
              const chosen = event.target.files?.[0] ?? null
              setFile(chosen)
              if (chosen && !name) setName(chosen.name.replace(/\.pdf$/i, ''))
            }}
          />
        </Field>
        <Field label="Template name">
          <Input value={name} maxLength={200} onChange={(event) => setName(event.target.value)} placeholder="e.g. Consulting agreement" />
        </Field>
        <Button type="submit" loading={upload.isPending} disabled={!file}>
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
        <Input value={name} maxLength={200} onChange={(event) => setName(event.target.value)} autoFocus />
      </Field>
    </FormDialog>
  )
}

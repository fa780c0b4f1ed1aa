import { useQuery } from '@tanstack/react-query'
import { getRouteApi, Link, useBlocker } from '@tanstack/react-router'
import { Button, ConfirmDialog, ErrorMessage, Loading, PageHeader, QueryView, useToast } from '../../components/index.ts'
import { fieldsForSave, hasUnsavedChanges, keyAtSaveIndex, type EditorAction, type EditorState } from './editor/editor-state.ts'
import { revealField } from './editor/reveal-field.ts'
import { refusedFieldIndex, saveErrorText } from './editor/save-error.ts'
import { TemplateEditor } from './editor/TemplateEditor.tsx'
import { TemplateRoles, templateRolesKey } from './roles/TemplateRoles.tsx'
import { templatePdfQuery, templateQuery, useSaveTemplateFields, type TemplateDetail } from './queries.ts'

const route = getRouteApi('/signed-in/templates/$id')

/** /app/templates/$id: the field editor. */
export default function TemplateEditorPage() {
  const { id } = route.useParams()
  const template = useQuery(templateQuery(id))
  // pdf.js (and its worker) load here, not with the dashboard.
  const pdf = useQuery(templatePdfQuery(id))

  return (
    <>
      <PageHeader
        title={template.data?.name ?? 'Template'}
        description="Place each signer's fields on the pages. Positions are stored in PDF points, the same as templates made with the API or the CLI."
        actions={
          <Link to="/templates" className="text-sm font-medium text-brand-700 underline">
            All templates
          </Link>
        }
      />
      <QueryView query={template} loadingLabel="Loading the template…" errorTitle="The template could not be loaded">
        {(data) =>
          pdf.isPending ? (
            <Loading label="Opening the PDF…" />
          ) : pdf.isError ? (
            <ErrorMessage title="The PDF could not be opened" error={pdf.error} onRetry={() => void pdf.refetch()} />
          ) : (
            <>
              <TemplateRoles key={templateRolesKey(data)} template={data} />
              <TemplateEditor pdf={pdf.data} serverPages={data.pages} fields={data.fields} roleNames={data.role_names}>
                {(state, dispatch) => <SaveBar template={data} state={state} dispatch={dispatch} />}
              </TemplateEditor>
            </>
          )
        }
      </QueryView>
    </>
  )
}

/** Save, its error, and the warning before leaving with unsaved changes. */
function SaveBar({ template, state, dispatch }: { template: TemplateDetail; state: EditorState; dispatch: (action: EditorAction) => void }) {
  const toast = useToast()
  const dirty = hasUnsavedChanges(state)
  const save = useSaveTemplateFields()
  const saveFields = () => {
    // The fields as sent: a refusal counts them in their order, and the editor may change while the save is on its way.
    const sent = state.fields
    save.mutate(
      { id: template.id, fields: fieldsForSave(sent) },
      {
        onSuccess: () => {
          dispatch({ type: 'saved' })
          toast({ title: 'Fields saved', tone: 'success' })
        },
        onError: (error) => {
          const index = refusedFieldIndex(error)
          const key = index === null ? null : keyAtSaveIndex(sent, index)
          if (key) revealField(dispatch, key)
        },
      },
    )
  }
  const blocker = useBlocker({ shouldBlockFn: () => hasUnsavedChanges(state), enableBeforeUnload: () => hasUnsavedChanges(state), withResolver: true })

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={saveFields} loading={save.isPending} disabled={!dirty || state.fields.length === 0}>
          Save fields
        </Button>
        <Button variant="ghost" size="sm" onClick={() => dispatch({ type: 'undo' })} disabled={state.past.length === 0}>
          Undo
        </Button>
        <Button variant="ghost" size="sm" onClick={() => dispatch({ type: 'redo' })} disabled={state.future.length === 0}>
          Redo
        </Button>
      </div>
      <p className="text-sm text-muted" aria-live="polite">
        {dirty ? 'Unsaved changes.' : 'All changes saved.'}
        {state.fields.length === 0 && ' A template needs at least one field.'}
      </p>
      {save.error && <ErrorMessage title="The fields were not saved" error={saveErrorText(save.error)} />}
      <ConfirmDialog
        open={blocker.status === 'blocked'}
        onOpenChange={(open) => {
          if (!open && blocker.status === 'blocked') blocker.reset()
        }}
        title="Leave without saving?"
        description="The changes to this template's fields have not been saved."
        confirmLabel="Leave"
        destructive
        onConfirm={() => blocker.proceed?.()}
      />
    </div>
  )
}

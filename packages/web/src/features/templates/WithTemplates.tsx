import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { ReactNode } from 'react'
import { Button, EmptyState, QueryView } from '../../components/index.ts'
import { templatesQuery, type TemplateSummary } from './queries.ts'

export interface WithTemplatesProps {
  /** Keeps only the templates that fit (e.g. one signer); all of them when absent. */
  fit?: (template: TemplateSummary) => boolean
  /** The empty state when no template fits, which links to the templates page. */
  emptyTitle: string
  emptyDescription: string
  children: (templates: TemplateSummary[]) => ReactNode
}

/** Loads the workspace's templates for a page that sends from one: loading and error states, or a way to make one. */
export function WithTemplates({ fit, emptyTitle, emptyDescription, children }: WithTemplatesProps) {
  const templates = useQuery(templatesQuery)
  return (
    <QueryView query={templates} loadingLabel="Loading templates…" errorTitle="Templates could not be loaded">
      {(data) => {
        const fitting = fit ? data.templates.filter(fit) : data.templates
        return fitting.length === 0 ? (
          <EmptyState
            title={emptyTitle}
            description={emptyDescription}
            action={
              <Button asChild>
                <Link to="/templates">Go to templates</Link>
              </Button>
            }
          />
        ) : (
          children(fitting)
        )
      }}
    </QueryView>
  )
}

import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { ReactNode } from 'react'
import { Card } from '../../components/index.ts'
import { templatesQuery } from '../templates/queries.ts'
import { allDocumentCountsQuery } from './queries.ts'

const linkClass = 'font-medium text-brand-700 underline'

/** Upload a template → Place fields → Send a document: shown until a document has been sent, each step done once what it makes exists. */
export function FirstRunSteps() {
  const templates = useQuery(templatesQuery)
  const counts = useQuery(allDocumentCountsQuery())
  if (!templates.data || !counts.data) return null
  const list = templates.data.templates
  const withoutFields = list.find((template) => template.roles.length === 0)
  const steps: { label: string; done: boolean; action: ReactNode }[] = [
    {
      label: 'Upload a template',
      done: list.length > 0,
      action: (
        <Link to="/templates" className={linkClass}>
          Templates
        </Link>
      ),
    },
    {
      label: 'Place fields',
      done: list.some((template) => template.roles.length > 0),
      action: withoutFields ? (
        <Link to="/templates/$id" params={{ id: withoutFields.id }} className={linkClass}>
          Open {withoutFields.name}
        </Link>
      ) : null,
    },
    {
      label: 'Send a document',
      done: counts.data.all > 0,
      action: (
        <Link to="/send" className={linkClass}>
          Send
        </Link>
      ),
    },
  ]
  if (steps.every((step) => step.done)) return null
  const next = steps.findIndex((step) => !step.done)
  return (
    <Card title="Get started" description={`${steps.filter((s) => s.done).length} of ${steps.length} done`}>
      <ol className="flex flex-col gap-2 sm:flex-row sm:gap-6">
        {steps.map((step, index) => (
          <li key={step.label} className="flex flex-wrap items-center gap-2 text-sm">
            <span
              className={
                step.done
                  ? 'flex size-5 items-center justify-center rounded-full bg-green-700 text-xs text-white'
                  : 'flex size-5 items-center justify-center rounded-full border-2 border-gray-400 text-xs'
              }
              aria-hidden="true"
            >
              {step.done ? '✓' : index + 1}
            </span>
            <span className={step.done ? 'text-muted line-through' : 'font-medium'}>{step.label}</span>
            <span className="sr-only">{step.done ? '(done)' : '(to do)'}</span>
            {index === next && step.action}
          </li>
        ))}
      </ol>
    </Card>
  )
}

import { useEffect, type ReactNode } from 'react'

/** The heading and line at the top of an AuthLayout card; also sets the document title. */
export function AuthHeading({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Signet`
  }, [title])
  return (
    <div className="mb-6">
      <h1 className="text-xl">{title}</h1>
      {children && <p className="mt-1 text-sm text-muted">{children}</p>}
    </div>
  )
}

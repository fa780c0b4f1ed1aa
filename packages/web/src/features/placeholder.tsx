import { EmptyState } from '../components/EmptyState.tsx'
import { PageHeader } from '../components/PageHeader.tsx'

/** A stand-in page for an area whose pages have not landed yet. */
export function placeholderPage(title: string) {
  function PlaceholderPage() {
    return (
      <>
        <PageHeader title={title} />
        <EmptyState title="This page is on its way" description={`${title} is being built.`} />
      </>
    )
  }
  PlaceholderPage.displayName = `${title.replaceAll(' ', '')}Placeholder`
  return PlaceholderPage
}

/** One page of a limit/offset list, as the API answers it. */
export interface Page {
  offset: number
  has_more: boolean
}

/**
 * Every item of a paged list, page after page, fetched as the loop asks for them. The API pages
 * by offset, newest first: an item created while the loop runs can shift an older one onto a page
 * already read, so the loop may see it twice (never miss one).
 */
export async function* everyItem<P extends Page, T>(fetchPage: (offset: number) => Promise<P>, itemsOf: (page: P) => T[]): AsyncGenerator<T, void, undefined> {
  let offset = 0
  for (;;) {
    const page = await fetchPage(offset)
    const items = itemsOf(page)
    yield* items
    if (!page.has_more || items.length === 0) return
    offset = page.offset + items.length
  }
}

/** The element with this id; the pages always render the ones the script uses, so a missing one is a bug. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id)
  if (!element) throw new Error(`The page has no #${id}`)
  return element as T
}

/** Screen-reader announcement; emptied first so that the same text is announced again. */
export function announce(text: string): void {
  const live = byId('live')
  live.textContent = ''
  setTimeout(() => (live.textContent = text), 50)
}

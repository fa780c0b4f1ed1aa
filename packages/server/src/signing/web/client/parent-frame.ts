/**
 * The messages an embedded signer page (signing/embed) posts to the integrator's page that frames
 * it: signet:loaded, signet:signed, signet:declined, signet:error, and signet:resize with the
 * page's height. Each goes only to the origin the server named in the boot JSON (one of the
 * workspace's embed origins, chosen when the URL was made), never to '*': a page that framed
 * the URL from anywhere else reads nothing. A page that is not framed, or not embedded, posts nothing.
 */
export type ParentMessage = 'signet:loaded' | 'signet:signed' | 'signet:declined' | 'signet:error' | 'signet:resize'

let parentOrigin: string | null = null

export function connectParent(origin: string | undefined): void {
  if (!origin || window.parent === window) return
  parentOrigin = origin
  let reported = 0
  new ResizeObserver(() => {
    const height = document.documentElement.scrollHeight
    if (height !== reported) tellParent('signet:resize', { height: (reported = height) })
  }).observe(document.body)
}

export function tellParent(type: ParentMessage, detail: Record<string, unknown> = {}): void {
  if (parentOrigin) window.parent.postMessage({ type, detail }, parentOrigin)
}

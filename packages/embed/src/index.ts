/**
 * <signet-signing url="…">: a Signet signer's page inside your own app, with no framework.
 *
 * `url` is a single-use embed URL your server got from
 * POST /api/v1/documents/{id}/signers/{signer_id}/embed (with `parent_origin` set to this page's origin).
 * The element frames it, takes the height the page reports (up to the window's height: the
 * page's toolbar stays in view), and re-dispatches the page's messages as DOM events that bubble:
 * `signet:loaded`, `signet:signed`, `signet:declined`, `signet:error`, each with the page's `detail`.
 * A message counts only when it comes from this element's own frame and from the URL's origin.
 */

/** The events the element dispatches. */
export const SIGNET_EVENTS = ['signet:loaded', 'signet:signed', 'signet:declined', 'signet:error'] as const
export type SignetEventType = (typeof SIGNET_EVENTS)[number]

interface PageMessage {
  type: string
  detail?: unknown
}

const isPageMessage = (data: unknown): data is PageMessage => typeof data === 'object' && data !== null && typeof (data as PageMessage).type === 'string'

/** Before the page reports its height. */
const INITIAL_HEIGHT = 600

export class SignetSigning extends HTMLElement {
  static readonly observedAttributes = ['url']
  private readonly frame: HTMLIFrameElement
  private readonly onMessage = (event: MessageEvent) => this.receive(event)

  constructor() {
    super()
    this.frame = document.createElement('iframe')
    this.frame.title = this.getAttribute('title') ?? 'Document to sign'
    // The page needs its own script and same-origin requests to its server; nothing else is granted (no clipboard, camera, payment…).
    this.frame.setAttribute('allow', '')
    this.frame.referrerPolicy = 'no-referrer'
    Object.assign(this.frame.style, { display: 'block', width: '100%', height: `${INITIAL_HEIGHT}px`, border: '0' })
    this.attachShadow({ mode: 'open' }).append(this.frame)
  }

  connectedCallback(): void {
    if (!this.style.display) this.style.display = 'block'
    window.addEventListener('message', this.onMessage)
    this.load()
  }

  disconnectedCallback(): void {
    window.removeEventListener('message', this.onMessage)
  }

  attributeChangedCallback(): void {
    if (this.isConnected) this.load()
  }

  /** The origin of the framed URL: the only one whose messages count. */
  private get pageOrigin(): string | null {
    try {
      return new URL(this.getAttribute('url') ?? '', document.baseURI).origin
    } catch {
      return null
    }
  }

  private load(): void {
    const url = this.getAttribute('url')
    if (url && this.frame.getAttribute('src') !== url) this.frame.setAttribute('src', url)
  }

  private receive(event: MessageEvent): void {
    if (event.source !== this.frame.contentWindow || event.origin !== this.pageOrigin || !isPageMessage(event.data)) return
    const { type, detail } = event.data
    if (type === 'signet:resize') {
      const height = Number((detail as { height?: unknown } | undefined)?.height)
      if (Number.isFinite(height) && height > 0) this.frame.style.height = `${Math.min(Math.ceil(height), window.innerHeight)}px`
      return
    }
    if ((SIGNET_EVENTS as readonly string[]).includes(type)) this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }))
  }
}

if (typeof customElements !== 'undefined' && !customElements.get('signet-signing')) customElements.define('signet-signing', SignetSigning)

declare global {
  interface HTMLElementTagNameMap {
    'signet-signing': SignetSigning
  }
}

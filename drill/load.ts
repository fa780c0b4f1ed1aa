/**
 * Mixed traffic through the balancer, as Signet's clients make it: REST creates with an
 * Idempotency-Key (repeated with the same key until they get an answer, as a careful client
 * does), MCP `tools/call` creates, bulk-sends, signers opening their e-mailed link and finishing
 * with the signing page's own calls, voids, dashboard sessions and reads. What each client ended
 * with is kept for the checks (drill/checks.ts).
 */
import { randomUUID } from 'node:crypto'
import type { MailReceiver } from './receivers.ts'
import { rgbaPng } from '../packages/server/test/helpers/png.ts'
import { MCP_HEADERS } from '../bench/as-run.ts'
import { sleep } from './cluster.ts'
import type { Recorder } from './recorder.ts'

export interface Seeded {
  orgId: string
  apiKey: string
  /** One role, one signature field (index 0). */
  templateId: string
  owner: { email: string; password: string }
}

export interface KeyedCreate {
  key: string
  title: string
  email: string
  documentId?: string
  /** The last answer: 201, or what the client gave up on (409 idempotency_key_in_progress after a kill, 0…). */
  lastStatus: number
  /** When the first attempt was sent (epoch ms): an unanswered create is allowed only if a crash cut it in flight. */
  firstSentAt: number
}

export interface McpCreate {
  title: string
  email: string
  /** ok: the tool answered with a document; unknown: no answer (the node died), so it may or may not exist. */
  outcome: 'ok' | 'unknown' | 'refused'
}

export interface BulkSend {
  key: string
  recipients: string[]
  lastStatus: number
}

export interface Signing {
  documentId: string
  token: string
  email: string
  finished: boolean
}

export interface LoadState {
  keyed: KeyedCreate[]
  mcp: McpCreate[]
  bulks: BulkSend[]
  signings: Signing[]
  voided: string[]
  inFlight: Record<string, number>
}

export interface LoadOptions {
  balancer: string
  seeded: Seeded
  mail: MailReceiver
  recorder: Recorder
  bulkRecipients: number
  /** Parallel signers. */
  signers: number
}

const SIGNATURE = `data:image/png;base64,${stroke().toString('base64')}`
const RETRY_PAUSE_MS = 300
const MAX_ATTEMPTS = 40
/** The server's bulk budget (BULK_BUDGET_MS, 60 s) and its 5 s margin, and some more. */
const BULK_TAKEOVER_WAIT_MS = 80_000
const BULK_IN_PROGRESS_PAUSE_MS = 1_000
/**
 * How long a signer waits for its invitation before taking another document meanwhile: an
 * invitation a killed node had claimed comes only when its lease ends (2 minutes), and a signer
 * blocked that long missed the rest of the faults.
 */
const MAIL_PATIENCE_MS = 5_000

/** A 200×50 PNG with a dark diagonal stroke, what a signer draws. */
function stroke(): Buffer {
  const width = 200
  const height = 50
  const rows: Buffer[] = []
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(width * 4)
    for (let x = 0; x < width; x++) if (Math.abs(x / 4 - y) < 2) row.set([20, 30, 90, 255], x * 4)
    rows.push(Buffer.concat([Buffer.from([0]), row]))
  }
  return rgbaPng(width, height, Buffer.concat(rows))
}

const retryable = (status: number) => status === 0 || status >= 500 || status === 409 || status === 429

export class Load {
  readonly state: LoadState = { keyed: [], mcp: [], bulks: [], signings: [], voided: [], inFlight: {} }
  private stopped = false
  private readonly workers: Promise<void>[] = []
  /** Documents whose invitation had not come within MAIL_PATIENCE_MS: signed once it comes. */
  private readonly lateInvitations: KeyedCreate[] = []

  constructor(private readonly options: LoadOptions) {}

  private get api() {
    return `${this.options.balancer}/api/v1`
  }

  private get keyHeaders() {
    return { authorization: `Bearer ${this.options.seeded.apiKey}`, 'content-type': 'application/json' }
  }

  start(): void {
    const loops: [string, () => Promise<void>][] = [
      ['create', () => this.createKeyed('create').then(() => sleep(200))],
      ['create', () => this.createKeyed('create').then(() => sleep(200))],
      ['mcp', () => this.createWithMcp().then(() => sleep(300))],
      ['bulk', () => this.bulkSend().then(() => sleep(500))],
      ['void', () => this.createAndVoid().then(() => sleep(500))],
      ['dashboard', () => this.dashboardSession().then(() => sleep(300))],
      ['read', () => this.reads().then(() => sleep(100))],
      ...Array.from({ length: this.options.signers }, (): [string, () => Promise<void>] => ['sign', () => this.signOne()]),
    ]
    for (const [kind, step] of loops) this.workers.push(this.loop(kind, step))
  }

  /** Lets every client finish what it is doing (a signer finishes signing), then returns. */
  async stop(): Promise<void> {
    this.stopped = true
    await Promise.all(this.workers)
  }

  private async loop(kind: string, step: () => Promise<void>): Promise<void> {
    while (!this.stopped) {
      this.state.inFlight[kind] = (this.state.inFlight[kind] ?? 0) + 1
      try {
        await step()
      } catch (error) {
        process.stderr.write(`drill: ${kind} client: ${(error as Error).message}\n`)
        await sleep(RETRY_PAUSE_MS)
      } finally {
        this.state.inFlight[kind] = (this.state.inFlight[kind] ?? 1) - 1
      }
    }
  }

  /** POST /documents with an Idempotency-Key, repeated with that key until it is answered. */
  async createKeyed(kind: string): Promise<KeyedCreate> {
    const key = randomUUID()
    const created: KeyedCreate = { key, title: `drill ${key}`, email: `s-${key}@drill.example`, lastStatus: 0, firstSentAt: Date.now() }
    this.state.keyed.push(created)
    const body = JSON.stringify({ template_id: this.options.seeded.templateId, title: created.title, signer: { email: created.email, name: 'Drill Signer' } })
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const response = await this.options.recorder.request(kind, `${this.api}/documents`, {
        method: 'POST',
        headers: { ...this.keyHeaders, 'idempotency-key': key },
        body,
      })
      created.lastStatus = response?.status ?? 0
      if (response?.status === 201) {
        created.documentId = ((await response.json()) as { id: string }).id
        break
      }
      if (!retryable(created.lastStatus)) break
      await sleep(RETRY_PAUSE_MS)
    }
    return created
  }

  private async createWithMcp(): Promise<void> {
    const id = randomUUID()
    const created: McpCreate = { title: `drill mcp ${id}`, email: `m-${id}@drill.example`, outcome: 'unknown' }
    this.state.mcp.push(created)
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'create_and_send_document',
        arguments: { template_id: this.options.seeded.templateId, title: created.title, signer_email: created.email, signer_name: 'Drill Agent Signer' },
      },
    }
    const response = await this.options.recorder.request('mcp', `${this.options.balancer}/api/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${this.options.seeded.apiKey}` },
      body: JSON.stringify(call),
    })
    if (!response || response.status >= 500) return
    const answer = (await response.json().catch(() => ({}))) as { result?: { isError?: boolean } }
    created.outcome = response.status === 200 && answer.result && !answer.result.isError ? 'ok' : 'refused'
  }

  private async bulkSend(): Promise<void> {
    const key = randomUUID()
    const recipients = Array.from({ length: this.options.bulkRecipients }, (_, i) => `b-${key}-${i}@drill.example`)
    const bulk: BulkSend = { key, recipients, lastStatus: 0 }
    this.state.bulks.push(bulk)
    const body = JSON.stringify({ template_id: this.options.seeded.templateId, recipients: recipients.map((email) => ({ email, name: 'Bulk Recipient' })) })
    // A bulk send whose node died keeps its key until its budget has passed; then a repeat takes it
    // over and sends to the recipients not yet sent to (documents/bulk-send.ts): so keep asking that long.
    const deadline = Date.now() + BULK_TAKEOVER_WAIT_MS
    while (Date.now() < deadline) {
      const response = await this.options.recorder.request('bulk', `${this.api}/documents/bulk-send`, {
        method: 'POST',
        headers: { ...this.keyHeaders, 'idempotency-key': key },
        body,
      })
      bulk.lastStatus = response?.status ?? 0
      if (!retryable(bulk.lastStatus)) return
      await sleep(bulk.lastStatus === 409 ? BULK_IN_PROGRESS_PAUSE_MS : RETRY_PAUSE_MS)
    }
  }

  private async createAndVoid(): Promise<void> {
    const created = await this.createKeyed('create')
    if (!created.documentId) return
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const response = await this.options.recorder.request('void', `${this.api}/documents/${created.documentId}/void`, {
        method: 'POST',
        headers: { authorization: this.keyHeaders.authorization },
      })
      if (response?.status === 200) {
        this.state.voided.push(created.documentId)
        return
      }
      if (!retryable(response?.status ?? 0)) return
      await sleep(RETRY_PAUSE_MS)
    }
  }

  /** Signs in, lists the documents and their counts, as the dashboard's Documents page does. */
  private async dashboardSession(): Promise<void> {
    const { owner } = this.options.seeded
    const login = await this.options.recorder.request('dashboard', `${this.api}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: this.options.balancer },
      body: JSON.stringify(owner),
    })
    const cookie = login?.headers.get('set-cookie')?.split(';')[0]
    if (!cookie) return
    for (let page = 0; page < 3 && !this.stopped; page++) {
      await this.options.recorder.request('dashboard', `${this.api}/documents?limit=20&offset=${page * 20}`, { headers: { cookie } })
      await this.options.recorder.request('dashboard', `${this.api}/documents/counts`, { headers: { cookie } })
    }
  }

  private async reads(): Promise<void> {
    const known = this.state.keyed.filter((k) => k.documentId)
    const pick = known[Math.floor(Math.random() * known.length)]
    const headers = { authorization: this.keyHeaders.authorization }
    if (pick) await this.options.recorder.request('read', `${this.api}/documents/${pick.documentId}`, { headers })
    await this.options.recorder.request('read', `${this.api}/documents?limit=5`, { headers })
  }

  /** A signer: the invitation e-mail's link, the page, its PDF, view, finish (repeated until answered). */
  private async signOne(): Promise<void> {
    const late = this.lateInvitations.findIndex((waiting) => this.invitationTokenOf(waiting.email))
    const created = late >= 0 ? (this.lateInvitations.splice(late, 1)[0] as KeyedCreate) : await this.createKeyed('create')
    if (!created.documentId) return
    const token = await this.invitationToken(created.email)
    if (!token) {
      this.lateInvitations.push(created)
      return
    }
    const signing: Signing = { documentId: created.documentId, token, email: created.email, finished: false }
    this.state.signings.push(signing)
    let cookie: string | undefined
    const call = async (path: string, init: RequestInit = {}) => {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const response = await this.options.recorder.request('sign', `${this.options.balancer}/sign/${token}${path}`, {
          ...init,
          headers: { 'user-agent': 'SignetDrill/1.0', ...(init.body ? { 'content-type': 'application/json' } : {}), ...(cookie ? { cookie } : {}) },
        })
        const setCookie = response?.headers.get('set-cookie')
        if (setCookie) cookie = setCookie.split(';')[0]
        if (response && !retryable(response.status)) return response
        await sleep(RETRY_PAUSE_MS)
      }
      return undefined
    }
    await call('')
    await call('/document.pdf')
    await call('/view', { method: 'POST', body: '{}' })
    const finish = await call('/finish', { method: 'POST', body: JSON.stringify({ values: { '0': SIGNATURE } }) })
    signing.finished = finish?.status === 200
  }

  /** The signing link's token from the invitation to `email`, once it came (within MAIL_PATIENCE_MS), else undefined. */
  private async invitationToken(email: string): Promise<string | undefined> {
    const deadline = Date.now() + MAIL_PATIENCE_MS
    for (;;) {
      const token = this.invitationTokenOf(email)
      if (token || Date.now() > deadline) return token
      await sleep(100)
    }
  }

  private invitationTokenOf(email: string): string | undefined {
    const text = this.options.mail.messages.find((m) => m.to?.some((t) => t.address === email))?.text
    return /\/sign\/([A-Za-z0-9_-]{43})/.exec(text ?? '')?.[1]
  }
}

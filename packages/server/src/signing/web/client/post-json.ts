import { t } from './i18n.ts'

/** A failed request: `message` is the server's `error` text (in the page's language) or ours, `status` 0 when the server was not reached. */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
  }
}

/** POSTs JSON and returns the answer; failures throw a RequestError. */
export async function postJson<T = unknown>(url: string, body: unknown): Promise<T> {
  let response: Response
  try {
    response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  } catch {
    throw new RequestError(t('client.unreachable'), 0)
  }
  const data = (await response.json().catch(() => ({}))) as T & { error?: unknown }
  if (!response.ok) {
    const text = typeof data?.error === 'string' ? data.error : t('client.httpError', { status: String(response.status) })
    throw new RequestError(text, response.status)
  }
  return data
}

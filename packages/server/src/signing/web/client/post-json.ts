/** A failed request: `message` is the server's `error` text (or ours), `status` 0 when the server was not reached. */
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
    throw new RequestError('Could not reach the server. Check your connection and try again.', 0)
  }
  const data = (await response.json().catch(() => ({}))) as T & { error?: unknown }
  if (!response.ok) {
    const text = typeof data?.error === 'string' ? data.error : `Something went wrong (HTTP ${response.status}). Please try again.`
    throw new RequestError(text, response.status)
  }
  return data
}

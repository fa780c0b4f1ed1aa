import { queryOptions, useMutation, type QueryClient } from '@tanstack/react-query'
import { redirect } from '@tanstack/react-router'
import { ApiError, isApiError } from '../../api/client.ts'
import { meQuery } from '../../auth/session.ts'

/**
 * The consent page's server state. An app that asks for a workspace through OAuth sends the
 * browser to /app/oauth/consent/<uid>; the page reads the request's details and posts the
 * person's decision to two JSON routes of the authorization server, beside the dashboard (not
 * under /api/v1, not in the OpenAPI client): a plain fetch with the session cookie, refused the
 * way the API refuses (ApiError with the server's {error, code, field}).
 */

export type Scope = 'read' | 'write'

export interface ConsentDetails {
  client: {
    name: string
    /** False when the name is the app's own claim (its registration or metadata document). */
    name_verified: boolean
    uri: string | null
    /** Where the browser goes after the decision. */
    redirect_host: string
    /** The client is known by a URL whose document describes it (a Client ID Metadata Document). */
    metadata_document: boolean
  }
  requested: Scope[]
  workspaces: { id: string; name: string; role: 'owner' | 'admin' | 'member'; can_grant_write: boolean; selected: boolean }[]
  user: { name: string; email: string }
}

export type ConsentDecision = { allow: true; workspace_id: string; scopes: Scope[] } | { allow: false }

export const consentKeys = { details: (uid: string) => ['oauth-consent', uid] as const }

const UNREACHABLE = 'The server could not be reached. Check your connection and try again.'

/**
 * No session in this browser: the page sends the person to log in and back. Not an ApiError, on
 * purpose: the app's 401 handler (main.tsx) would reload the route, whose loader is the one
 * that leads to the login page.
 */
export class SignInNeeded extends Error {
  override readonly name = 'SignInNeeded'
}

/** The consent route's JSON, or an ApiError with the server's text, code and field. */
async function consentFetch<T>(uid: string, what: 'details' | 'decision', init: RequestInit = {}): Promise<T> {
  let response: Response
  try {
    response = await fetch(`/app/oauth/consent/${encodeURIComponent(uid)}/${what}`, {
      ...init,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) },
    })
  } catch {
    throw new ApiError(0, UNREACHABLE, null)
  }
  const body: unknown = await response.json().catch(() => null)
  if (!response.ok) {
    const text = body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' ? body.error : null
    if (response.status === 401) throw new SignInNeeded(text ?? 'Log in to continue.')
    throw new ApiError(response.status, text ?? `The server answered ${response.status} ${response.statusText}`.trim() + '.', body)
  }
  return body as T
}

export const consentDetailsQuery = (uid: string) =>
  queryOptions({
    queryKey: consentKeys.details(uid),
    queryFn: () => consentFetch<ConsentDetails>(uid, 'details'),
    // A refusal is an answer (sign in, expired, not allowed): asking again changes nothing.
    retry: (count, error) => !isApiError(error) && !(error instanceof SignInNeeded) && count < 2,
    staleTime: Infinity,
  })

/** The request was not found: it expired, was already decided, or was started in another browser. */
export const consentGone = (error: unknown): boolean => isApiError(error, 404)

/** The login page's `next` that leads back to this consent page. */
export const consentPath = (uid: string) => `/oauth/consent/${uid}`

/**
 * The consent route's loader: the details before the page shows; without a session, the
 * login page, which comes back here once signed in. Other refusals are the page's to show.
 */
export async function consentLoads(queryClient: QueryClient, uid: string): Promise<void> {
  try {
    await queryClient.ensureQueryData(consentDetailsQuery(uid))
  } catch (error) {
    if (!(error instanceof SignInNeeded)) return
    // The session is gone: the login page must not take the person for signed in.
    queryClient.setQueryData(meQuery.queryKey, null)
    queryClient.removeQueries({ queryKey: consentKeys.details(uid) })
    throw redirect({ to: '/login', search: { next: consentPath(uid) } })
  }
}

/**
 * Allow or deny. The answer is where the app expects the browser back: a navigation, not a
 * form post (Chromium would hold the redirects that follow a form post to the page's CSP
 * form-action). Once answered, the page keeps its buttons disabled while the browser leaves.
 */
export function useConsentDecision(uid: string) {
  return useMutation({
    mutationFn: async (decision: ConsentDecision) => {
      const { redirect_to } = await consentFetch<{ redirect_to: string }>(uid, 'decision', { method: 'POST', body: JSON.stringify(decision) })
      window.location.assign(redirect_to)
      return redirect_to
    },
  })
}

import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { api, isApiError, unwrap, type ApiError } from '../../api/client.ts'
import type { operations } from '@signet/sdk/openapi'
import { meQuery, type Me } from '../../auth/session.ts'
import { signWithPasskey } from '../../lib/passkeys.ts'
import { appPathOf } from '../../lib/search.ts'

/**
 * The public account routes' server state (POST /auth/…, invitations): the invitation query and
 * the mutations; those that start a session keep only the new Me in the cache and open the app.
 * The pages call the API only through here.
 */

export const authKeys = {
  invitation: (token: string) => ['invitation', token] as const,
}

export const invitationQuery = (token: string) =>
  queryOptions({
    queryKey: authKeys.invitation(token),
    queryFn: () => unwrap(api.GET('/invitations/{token}', { params: { path: { token } } })),
    retry: false,
  })

export type Invitation = operations['getInvitation']['responses'][200]['content']['application/json']

/** Me, or the second step the account asks for (its cookie is set). */
const logIn = (body: { email: string; password: string }) => unwrap(api.POST('/auth/login', { body }))
const signUp = (body: { email: string; password: string; name: string; workspace_name?: string; invitation_token?: string }) =>
  unwrap(api.POST('/auth/signup', { body }))

/** What a right password answers: a session (Me), or the second step the account asks for. */
export type SignInAnswer = Awaited<ReturnType<typeof logIn>>
export type SecondStep = Extract<SignInAnswer, { second_factor_required: true }>
export type SecondFactorMethod = SecondStep['methods'][number]

export function needsSecondStep(answer: SignInAnswer): answer is SecondStep {
  return 'second_factor_required' in answer
}

/** The second step ran out (five minutes, five answers) or was used: only a new sign-in helps. */
export const secondStepEnded = (error: Error): error is ApiError => isApiError(error, 410)

/**
 * What follows an answer that started a session: only the new Me stays cached (the rest belonged
 * to no one, or to someone else), then the app opens. `next` comes from our own redirect to the
 * login page (or the server's, for an app asking for consent); it is followed only when it is a
 * path inside the app, never another site (appPathOf).
 */
function useEnterApp(next: string | undefined) {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  return async (me: Me) => {
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== meQuery.queryKey[0] })
    queryClient.setQueryData(meQuery.queryKey, me)
    await navigate({ to: appPathOf(next) ?? '/' })
  }
}

/** The password; a right one opens the app, unless the account asks for its second step. */
export function useLogIn(next?: string) {
  const enterApp = useEnterApp(next)
  return useMutation({ mutationFn: logIn, onSuccess: (answer) => (needsSecondStep(answer) ? undefined : enterApp(answer)) })
}

/** A new account and its first workspace; the answer says a verification link was mailed. */
export function useSignUp() {
  return useMutation({ mutationFn: signUp })
}

/** The verification link: the account is verified and signed in. */
export function useVerifyEmail() {
  const enterApp = useEnterApp(undefined)
  return useMutation({ mutationFn: (token: string) => unwrap(api.POST('/auth/verify-email', { body: { token } })), onSuccess: enterApp })
}

export function useForgotPassword() {
  return useMutation({ mutationFn: (email: string) => unwrap(api.POST('/auth/forgot-password', { body: { email } })) })
}

/** A new password from a reset link; it signs in, unless the account asks for its second step (a reset link does not skip it). */
export function useResetPassword() {
  const enterApp = useEnterApp(undefined)
  return useMutation({
    mutationFn: (body: { token: string; password: string }) => unwrap(api.POST('/auth/reset-password', { body })),
    onSuccess: (answer) => (needsSecondStep(answer) ? undefined : enterApp(answer)),
  })
}

/** The instance operator's account, from the one-time setup link. */
export function useSetUp() {
  const enterApp = useEnterApp(undefined)
  return useMutation({
    mutationFn: (body: { token: string; email: string; password: string; name: string; workspace_name: string }) => unwrap(api.POST('/auth/setup', { body })),
    onSuccess: enterApp,
  })
}

/** A signed-in person joins the invitation's workspace. */
export function useAcceptInvitation() {
  const enterApp = useEnterApp(undefined)
  return useMutation({
    mutationFn: (token: string) => unwrap(api.POST('/invitations/{token}/accept', { params: { path: { token } } })),
    onSuccess: enterApp,
  })
}

/**
 * A new account from an invitation. The invitation mail proved the address, so the account is
 * created verified and signs in at once (an account that already existed may ask for its second step).
 */
export function useJoinWithInvitation() {
  const enterApp = useEnterApp(undefined)
  return useMutation({
    mutationFn: async ({ token, email, name, password }: { token: string; email: string; name: string; password: string }) => {
      await signUp({ email, name, password, invitation_token: token })
      return logIn({ email, password })
    },
    onSuccess: (answer) => (needsSecondStep(answer) ? undefined : enterApp(answer)),
  })
}

// The second step of signing in, answered with the step cookie the password's 202 set.

/** A code from the authenticator app, or a recovery code. */
export function useFinishWithCode(kind: 'totp' | 'recovery_code', next: string | undefined) {
  const enterApp = useEnterApp(next)
  return useMutation({
    mutationFn: (code: string) =>
      kind === 'totp'
        ? unwrap(api.POST('/auth/second-factor/totp', { body: { code } }))
        : unwrap(api.POST('/auth/second-factor/recovery-code', { body: { code } })),
    onSuccess: enterApp,
  })
}

/** A passkey of the account signs the server's challenge. */
export function useFinishWithPasskey(next: string | undefined) {
  const enterApp = useEnterApp(next)
  return useMutation({
    mutationFn: async () => {
      const { options } = await unwrap(api.POST('/auth/second-factor/passkey/options'))
      return unwrap(api.POST('/auth/second-factor/passkey', { body: { response: await signWithPasskey(options) } }))
    },
    onSuccess: enterApp,
  })
}

/** Signing in with a passkey alone: the passkey names the account and proves two factors on the device. */
export function usePasskeySignIn(next: string | undefined) {
  const enterApp = useEnterApp(next)
  return useMutation({
    mutationFn: async () => {
      const { options } = await unwrap(api.POST('/auth/passkey/options'))
      return unwrap(api.POST('/auth/passkey', { body: { response: await signWithPasskey(options) } }))
    },
    onSuccess: enterApp,
  })
}

import { api, unwrap } from '../../api/client.ts'
import type { PasskeyAssertion } from '../../lib/passkeys.ts'

type PasskeyAnswer = { response: PasskeyAssertion }

/** The public account routes (POST /auth/…, invitations); those that start a session answer Me. */
export const authApi = {
  /** Me, or the second step the account asks for (its cookie is set). */
  logIn: (body: { email: string; password: string }) => unwrap(api.POST('/auth/login', { body })),
  signUp: (body: { email: string; password: string; name: string; workspace_name?: string; invitation_token?: string }) =>
    unwrap(api.POST('/auth/signup', { body })),
  verifyEmail: (token: string) => unwrap(api.POST('/auth/verify-email', { body: { token } })),
  forgotPassword: (email: string) => unwrap(api.POST('/auth/forgot-password', { body: { email } })),
  /** Me, or the second step: a reset link does not skip it. */
  resetPassword: (body: { token: string; password: string }) => unwrap(api.POST('/auth/reset-password', { body })),
  setUp: (body: { token: string; email: string; password: string; name: string; workspace_name: string }) => unwrap(api.POST('/auth/setup', { body })),
  invitation: (token: string) => unwrap(api.GET('/invitations/{token}', { params: { path: { token } } })),
  acceptInvitation: (token: string) => unwrap(api.POST('/invitations/{token}/accept', { params: { path: { token } } })),

  // The second step of signing in, answered with the step cookie the password's 202 set.
  finishWithTotp: (code: string) => unwrap(api.POST('/auth/second-factor/totp', { body: { code } })),
  finishWithRecoveryCode: (code: string) => unwrap(api.POST('/auth/second-factor/recovery-code', { body: { code } })),
  secondStepPasskeyOptions: () => unwrap(api.POST('/auth/second-factor/passkey/options')),
  finishWithPasskey: (body: PasskeyAnswer) => unwrap(api.POST('/auth/second-factor/passkey', { body })),
  // Signing in with a passkey alone.
  passkeySignInOptions: () => unwrap(api.POST('/auth/passkey/options')),
  signInWithPasskey: (body: PasskeyAnswer) => unwrap(api.POST('/auth/passkey', { body })),
}

export type Invitation = Awaited<ReturnType<typeof authApi.invitation>>

/** What a right password answers: a session (Me), or the second step the account asks for. */
export type SignInAnswer = Awaited<ReturnType<typeof authApi.logIn>>
export type SecondStep = Extract<SignInAnswer, { second_factor_required: true }>
export type SecondFactorMethod = SecondStep['methods'][number]

export function needsSecondStep(answer: SignInAnswer): answer is SecondStep {
  return 'second_factor_required' in answer
}

export const PASSWORD_HINT = '8 to 128 characters. A long phrase is easiest to remember; common passwords are refused.'

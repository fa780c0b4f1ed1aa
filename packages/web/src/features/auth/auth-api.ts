import { api, unwrap } from '../../api/client.ts'

/** The public account routes (POST /auth/…, invitations); those that start a session answer Me. */
export const authApi = {
  logIn: (body: { email: string; password: string }) => unwrap(api.POST('/auth/login', { body })),
  signUp: (body: { email: string; password: string; name: string; workspace_name?: string; invitation_token?: string }) =>
    unwrap(api.POST('/auth/signup', { body })),
  verifyEmail: (token: string) => unwrap(api.POST('/auth/verify-email', { body: { token } })),
  forgotPassword: (email: string) => unwrap(api.POST('/auth/forgot-password', { body: { email } })),
  resetPassword: (body: { token: string; password: string }) => unwrap(api.POST('/auth/reset-password', { body })),
  setUp: (body: { token: string; email: string; password: string; name: string; workspace_name: string }) => unwrap(api.POST('/auth/setup', { body })),
  invitation: (token: string) => unwrap(api.GET('/invitations/{token}', { params: { path: { token } } })),
  acceptInvitation: (token: string) => unwrap(api.POST('/invitations/{token}/accept', { params: { path: { token } } })),
}

export type Invitation = Awaited<ReturnType<typeof authApi.invitation>>

export const PASSWORD_HINT = '8 to 128 characters. A long phrase is easiest to remember; common passwords are refused.'

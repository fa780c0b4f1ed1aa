/**
 * How whoever acted in an audit event proved who they are: the sender's door (an API key, an
 * OAuth grant, a dashboard sign-in, the operator's command line), the signer's (the e-mailed
 * link, with or without a one-time code), or Signet itself.
 */
export const AUTH_METHODS = ['api_key', 'oauth', 'session', 'operator', 'email_link', 'email_link+email_code', 'system'] as const
export type AuthMethod = (typeof AUTH_METHODS)[number]

/** Each method in words, for the certificate's Authentication and Sent by rows and the dashboard's audit trail. */
export const AUTH_METHOD_LABELS: Record<AuthMethod, string> = {
  api_key: 'API key',
  oauth: 'OAuth grant',
  session: 'Dashboard sign-in',
  operator: "Operator's command line",
  email_link: 'E-mail link',
  'email_link+email_code': 'E-mail link + one-time e-mail code',
  system: 'Signet (automatic)',
}

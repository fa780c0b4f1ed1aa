import { Type, type Static } from 'typebox'
import { NullableTimestamp, Timestamp } from '../../lib/schemas.ts'
import { displayName } from '../../lib/visible-text.ts'

/** Shapes of the second-factor routes: signing in with one, setting them up, the workspace rule, the security log. */

const Password = Type.String({ minLength: 1, maxLength: 512, description: 'your current password: changes to how you sign in ask for it again' })
const Code = Type.String({ minLength: 1, maxLength: 40 })
const Base64Url = Type.String({ minLength: 1, maxLength: 16_384, pattern: '^[A-Za-z0-9_-]+$' })
const Transports = Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 10 })
const Attachment = Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')]))
/** Extensions the browser reports (credProps and the like): an open object, as browsers add members. */
const ExtensionResults = Type.Object({}, { additionalProperties: true, description: 'clientExtensionResults, as the browser gives it' })

export const SecondFactorMethod = Type.Union([Type.Literal('totp'), Type.Literal('passkey'), Type.Literal('recovery_code')])
export type SecondFactorMethod = Static<typeof SecondFactorMethod>

/** What /auth/login answers (202) when the password was right and a second factor must follow. */
export const SecondFactorNeeded = Type.Object(
  {
    second_factor_required: Type.Literal(true),
    methods: Type.Array(SecondFactorMethod, { description: 'the ways this account can finish signing in' }),
    expires_at: Type.String({ format: 'date-time', description: 'the step ends then: sign in again with the password after it' }),
  },
  { additionalProperties: false },
)
export type SecondFactorNeeded = Static<typeof SecondFactorNeeded>

export const CodeBody = Type.Object({ code: Code }, { additionalProperties: false })

export const AuthenticationResponse = Type.Object(
  {
    id: Base64Url,
    rawId: Base64Url,
    type: Type.Literal('public-key'),
    response: Type.Object(
      { clientDataJSON: Base64Url, authenticatorData: Base64Url, signature: Base64Url, userHandle: Type.Optional(Base64Url) },
      { additionalProperties: false },
    ),
    authenticatorAttachment: Attachment,
    clientExtensionResults: ExtensionResults,
  },
  { additionalProperties: false, description: 'the browser’s answer (navigator.credentials.get, as @simplewebauthn/browser returns it)' },
)
export const PasskeyAnswerBody = Type.Object({ response: AuthenticationResponse }, { additionalProperties: false })

export const RegistrationResponse = Type.Object(
  {
    id: Base64Url,
    rawId: Base64Url,
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: Base64Url,
        attestationObject: Base64Url,
        authenticatorData: Type.Optional(Base64Url),
        transports: Type.Optional(Transports),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        publicKey: Type.Optional(Base64Url),
      },
      { additionalProperties: false },
    ),
    authenticatorAttachment: Attachment,
    clientExtensionResults: ExtensionResults,
  },
  { additionalProperties: false, description: 'the browser’s answer (navigator.credentials.create, as @simplewebauthn/browser returns it)' },
)

/** WebAuthn options, passed to the browser as they are (PublicKeyCredentialRequestOptionsJSON / CreationOptionsJSON). */
export const PasskeyOptions = Type.Object(
  { options: Type.Object({}, { additionalProperties: true, description: 'options for @simplewebauthn/browser (optionsJSON)' }) },
  { additionalProperties: false },
)

export const TotpSetup = Type.Object(
  {
    secret: Type.String({ description: 'the secret, for typing into an app by hand' }),
    otpauth_uri: Type.String({ description: 'the otpauth:// URI the QR code holds' }),
    qr_svg: Type.String({ description: 'the QR code as an SVG image' }),
    expires_at: Timestamp,
  },
  { additionalProperties: false },
)

export const ConfirmTotpBody = Type.Object({ code: Code, password: Password }, { additionalProperties: false })
export const PasswordBody = Type.Object({ password: Password }, { additionalProperties: false })
export const AddPasskeyBody = Type.Object(
  { name: displayName(Type.String({ minLength: 1, maxLength: 100 })), response: RegistrationResponse },
  { additionalProperties: false },
)

export const RecoveryCodes = Type.Object(
  { recovery_codes: Type.Array(Type.String(), { description: 'shown this once: keep them somewhere safe' }) },
  { additionalProperties: false },
)
/** Setting up a first factor also makes recovery codes; later ones do not. */
export const FactorAdded = Type.Object(
  {
    recovery_codes: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'new recovery codes when this was your first second factor; null otherwise',
    }),
  },
  { additionalProperties: false },
)

export const PasskeyView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    created_at: Timestamp,
    last_used_at: NullableTimestamp,
    synced: Type.Boolean({ description: 'backed up to a cloud account (a synced passkey)' }),
  },
  { additionalProperties: false },
)
export type PasskeyView = Static<typeof PasskeyView>

export const AddedPasskey = Type.Object({ passkey: PasskeyView, recovery_codes: FactorAdded.properties.recovery_codes }, { additionalProperties: false })

export const TwoFactorStatus = Type.Object(
  {
    enabled: Type.Boolean({ description: 'at least one second factor is set up' }),
    totp: Type.Object({ enabled: Type.Boolean(), enabled_at: NullableTimestamp }, { additionalProperties: false }),
    passkeys: Type.Array(PasskeyView),
    recovery_codes_left: Type.Integer(),
    required_by: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }), {
      description: 'your workspaces that require a second factor',
    }),
    this_session: Type.Object(
      { second_factor: Type.Boolean({ description: 'this session proved a second factor (or signed in with a passkey)' }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)
export type TwoFactorStatus = Static<typeof TwoFactorStatus>

export const PasskeyIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false })

export const WorkspaceSecurity = Type.Object(
  {
    require_two_factor: Type.Boolean(),
    members_without_two_factor: Type.Array(Type.Object({ user_id: Type.String(), name: Type.String(), email: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
)
export const WorkspaceSecurityBody = Type.Object({ require_two_factor: Type.Boolean() }, { additionalProperties: false })

export const AccountEventList = Type.Object(
  {
    events: Type.Array(
      Type.Object(
        {
          kind: Type.String(),
          description: Type.String(),
          created_at: Timestamp,
          ip: Type.Union([Type.String(), Type.Null()]),
          user_agent: Type.Union([Type.String(), Type.Null()]),
          by_someone_else: Type.Boolean({ description: 'done by an operator or a workspace owner, not by you' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

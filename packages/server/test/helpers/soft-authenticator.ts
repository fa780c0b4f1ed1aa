import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { isoCBOR } from '@simplewebauthn/server/helpers'

/**
 * A passkey authenticator in software, for tests that speak WebAuthn without a browser: it makes
 * ES256 credentials with "none" attestation and signs assertions exactly as a platform
 * authenticator does (authenticator data, client data, signature over both). The browser tests
 * use Chromium's own virtual authenticator instead.
 */
interface Credential {
  id: Buffer
  privateKey: KeyObject
  userHandle: string
  signCount: number
}

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url')
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest()

const FLAG_USER_PRESENT = 0x01
const FLAG_USER_VERIFIED = 0x04
const FLAG_ATTESTED_DATA = 0x40

function uint32(value: number): Buffer {
  const buffer = Buffer.alloc(4)
  buffer.writeUInt32BE(value)
  return buffer
}

/** The COSE form of an EC P-256 public key (kty EC2, alg ES256). */
function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' })
  return isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x ?? '', 'base64url')],
      [-3, Buffer.from(jwk.y ?? '', 'base64url')],
    ]),
  )
}

export class SoftAuthenticator {
  private readonly credentials: Credential[] = []
  /** Whether the "device" verifies its user (PIN or biometric), as passkey-only sign-in requires. */
  userVerification = true

  constructor(private readonly origin: string) {}

  get rpId(): string {
    return new URL(this.origin).hostname
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }))
  }

  private flags(extra = 0): number {
    return FLAG_USER_PRESENT | (this.userVerification ? FLAG_USER_VERIFIED : 0) | extra
  }

  /** Answers navigator.credentials.create(options) with a new credential. */
  register(options: Record<string, unknown>) {
    // Through PEM, as oauth/server-keys.ts does: exporting the generated key objects as JWK can deadlock Node 20.
    const pair = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    })
    const publicKey = createPublicKey(pair.publicKey)
    const privateKey = createPrivateKey(pair.privateKey)
    const id = randomBytes(16)
    const user = options.user as { id: string }
    this.credentials.push({ id, privateKey, userHandle: user.id, signCount: 0 })
    const attestedData = Buffer.concat([Buffer.alloc(16), Buffer.from([0, id.length]), id, coseKey(publicKey)])
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([this.flags(FLAG_ATTESTED_DATA)]), uint32(0), attestedData])
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    )
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', String(options.challenge))),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    }
  }

  /** Answers navigator.credentials.get(options) with the first allowed credential (any, when none is listed). */
  authenticate(options: Record<string, unknown>, tamper: { challenge?: string } = {}) {
    const allowed = (options.allowCredentials as { id: string }[] | undefined)?.map((c) => c.id)
    const credential = this.credentials.find((c) => !allowed?.length || allowed.includes(b64url(c.id)))
    if (!credential) throw new Error('no credential of this authenticator is allowed')
    credential.signCount += 1
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([this.flags()]), uint32(credential.signCount)])
    const clientDataJSON = this.clientData('webauthn.get', tamper.challenge ?? String(options.challenge))
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey)
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    }
  }
}

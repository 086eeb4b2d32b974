/**
 * A library's signing key and the signature on its publications. Each library has an Ed25519
 * key (node:crypto), made on its first push and kept beside its id in the library root
 * (`.bourdon-library-key`, owner-only, never published: a push reads only `agents/`). A push
 * signs a statement of its publication — the machine, the library's id, the level, when, its
 * public key and the SHA-256 of every manifest it publishes — and puts the public key and the
 * signature in `publication.json`. A pull verifies it, and that the folder holds exactly the
 * manifests signed (trust.ts decides whose key is accepted for a machine).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError } from '../core/errors.js';
import { libraryRootFile } from './workspace.js';

/** The file in the library root that holds its private key. */
export const LIBRARY_KEY_FILE = '.bourdon-library-key';
const KEY_PREFIX = 'ed25519:';
const PUBLIC_KEY = /^ed25519:[A-Za-z0-9_-]{43}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{86}$/;
const DIGEST = /^[0-9a-f]{64}$/;

export interface LibraryKey {
  privateKey: KeyObject;
  /** `ed25519:<the raw 32-byte key, base64url>`, as publication.json carries it. */
  publicKey: string;
  fingerprint: string;
}

/** What a publication's signature covers (besides the format). */
export interface SignedFields {
  machine: string;
  library_id: string;
  access_level: string;
  published_at: string;
  public_key: string;
  /** agent id → SHA-256 (hex) of its published manifest. */
  digests: Record<string, string>;
}

/** A private key with its public key and fingerprint, as publications name them. */
export function keyOf(privateKey: KeyObject): LibraryKey {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const publicKey = `${KEY_PREFIX}${String(jwk.x)}`;
  return { privateKey, publicKey, fingerprint: fingerprint(publicKey) };
}

/**
 * This library's signing key: made once (with `create`) and kept in the library root, owner-only.
 * A link or anything but a small regular file there is refused, never read through; a key file
 * others can read is made owner-only again. Null when there is none and `create` is false.
 */
export function libraryKey(library: string, create = true): LibraryKey | null {
  const file = path.join(library, LIBRARY_KEY_FILE);
  return libraryRootFile(file, {
    what: 'key file',
    maxBytes: 4096,
    read: (text, stat) => {
      if ((stat.mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
      let privateKey: KeyObject | null;
      try {
        privateKey = createPrivateKey(text);
      } catch {
        privateKey = null;
      }
      if (!privateKey || privateKey.asymmetricKeyType !== 'ed25519')
        throw new BourdonError(
          `${file} holds no Ed25519 private key: remove it (a new key is made on the next push, and the other machines accept it with \`bourdon sync trust <this machine>\`)`,
          'invalid_input',
        );
      return keyOf(privateKey);
    },
    make: create
      ? () => ({
          text: generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
          mode: 0o600,
        })
      : undefined,
  });
}

/** A public key's fingerprint, as ssh prints one: `SHA256:` and the digest of the raw key in base64. */
export function fingerprint(publicKey: string): string {
  const raw = Buffer.from(publicKey.slice(KEY_PREFIX.length), 'base64url');
  return `SHA256:${createHash('sha256').update(raw).digest('base64').replace(/=+$/, '')}`;
}

/** SHA-256 of a published manifest, as the signature lists it. */
export function manifestDigest(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Whether these fields have the shape a signed publication's have (checked before any verify). */
export function isSignedShape(fields: {
  public_key?: unknown;
  signature?: unknown;
  digests?: unknown;
}): fields is { public_key: string; signature: string; digests: Record<string, string> } {
  if (typeof fields.public_key !== 'string' || !PUBLIC_KEY.test(fields.public_key)) return false;
  if (typeof fields.signature !== 'string' || !SIGNATURE.test(fields.signature)) return false;
  const digests = fields.digests;
  if (typeof digests !== 'object' || digests === null || Array.isArray(digests)) return false;
  return Object.values(digests).every((digest) => typeof digest === 'string' && DIGEST.test(digest));
}

/**
 * The text a publication's signature is made over: one field a line, the manifests sorted by id.
 * Every value is an id, a level, a UUID, a timestamp, a key or a digest (checked before: none
 * holds a line break).
 */
function statement(fields: SignedFields): Buffer {
  const lines = [
    'bourdon-sync/1 publication',
    `machine ${fields.machine}`,
    `library ${fields.library_id}`,
    `level ${fields.access_level}`,
    `published ${fields.published_at}`,
    `key ${fields.public_key}`,
    ...Object.keys(fields.digests)
      .sort()
      .map((agent) => `manifest ${agent} sha256:${fields.digests[agent]}`),
  ];
  if (lines.some((line) => /[\r\n]/.test(line))) throw new Error('a signed field holds a line break');
  return Buffer.from(lines.join('\n') + '\n', 'utf8');
}

export function signPublication(fields: Omit<SignedFields, 'public_key'>, key: LibraryKey): string {
  return sign(null, statement({ ...fields, public_key: key.publicKey }), key.privateKey).toString('base64url');
}

/** Whether `signature` is the signature of `fields` by the key they name. */
export function signatureVerifies(fields: SignedFields, signature: string): boolean {
  try {
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: fields.public_key.slice(KEY_PREFIX.length) },
      format: 'jwk',
    });
    return verify(null, statement(fields), publicKey, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiRole, roleAllows } from '../options/api-role';
import { ApiKeyOption } from '../options/conveyor-http-options.interface';

/** Who a valid key belongs to. `keyId` names the key by role and position, never by its text. */
export interface ApiPrincipal {
  role: ApiRole;
  keyId: string;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * The configured keys, held only as SHA-256 digests. Matching compares digests, which all have the same
 * length, with timingSafeEqual, and always against every key: the time a lookup takes says nothing about
 * how much of a guess was right, nor about which key came close.
 */
export class ApiKeyRing {
  private readonly entries: Array<{ digest: Buffer; principal: ApiPrincipal }>;

  constructor(keys: readonly ApiKeyOption[]) {
    this.entries = keys.map((k, i) => ({ digest: sha256(k.key), principal: { role: k.role, keyId: `${k.role}#${i + 1}` } }));
  }

  /** Whether any key is configured; without keys the API is open. */
  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  /** The principal of a presented key (the strongest role when a key is listed twice), or null. */
  match(presented: string): ApiPrincipal | null {
    const digest = sha256(presented);
    let found: ApiPrincipal | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(digest, entry.digest) && (!found || roleAllows(entry.principal.role, found.role))) {
        found = entry.principal;
      }
    }
    return found;
  }
}

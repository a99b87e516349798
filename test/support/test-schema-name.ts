import { randomBytes } from 'node:crypto';

/** PostgreSQL truncates identifiers longer than this (NAMEDATALEN - 1). */
const MAX_IDENTIFIER_LENGTH = 63;

/**
 * A fresh schema name for a test file: `t_<label>_<8 hex>`, lower-case letters, digits and `_`
 * only (so it never needs quoting), at most 63 characters. The label keeps a leftover schema
 * traceable to its test; the random part keeps parallel and repeated runs apart.
 */
export function testSchemaName(label: string): string {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const suffix = randomBytes(4).toString('hex');
  const head = `t_${slug}`.slice(0, MAX_IDENTIFIER_LENGTH - suffix.length - 1).replace(/_+$/, '');
  return `${head}_${suffix}`;
}

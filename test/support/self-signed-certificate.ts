import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a self-signed certificate's files are, and their PEM text. */
export interface SelfSignedCertificate {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

/**
 * A self-signed certificate for `localhost` and 127.0.0.1 made by `openssl req -x509` in `dir` (server.crt,
 * server.key); the key is readable by its owner only, as PostgreSQL demands.
 */
export function selfSignedCertificate(dir: string): SelfSignedCertificate {
  const certFile = join(dir, 'server.crt');
  const keyFile = join(dir, 'server.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'pipe' },
  );
  chmodSync(keyFile, 0o600);
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** Debian's Chromium, which the browser tests drive through playwright-core (it ships no browser itself). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Installing Chromium with apt-get on a fresh machine takes a minute or two; a slow mirror, longer. */
export const ENSURE_CHROMIUM_TIMEOUT_MS = 10 * 60_000;

let installing: Promise<string> | undefined;

/**
 * Runs scripts/ensure-chromium.sh once per process (it installs Chromium with apt-get when it is missing,
 * or fails saying what to install) and resolves to the browser's path. The script's own output is passed
 * through in the error when it fails, so the reason shows up in the test report.
 */
export function ensureChromium(): Promise<string> {
  installing ??= new Promise((resolve, reject) => {
    const script = join(__dirname, '..', '..', 'scripts', 'ensure-chromium.sh');
    execFile('bash', [script], { timeout: ENSURE_CHROMIUM_TIMEOUT_MS, env: { ...process.env, CHROMIUM_PATH } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`scripts/ensure-chromium.sh failed: ${err.message}\n${stdout}\n${stderr}`.trim()));
      else resolve(CHROMIUM_PATH);
    });
  });
  return installing;
}

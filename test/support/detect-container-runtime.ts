import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

/** Where a Docker-compatible runtime answered, in DOCKER_HOST form (`unix:///…` or `tcp://…`). */
export type ContainerRuntimeHost = string;

/**
 * Finds a container runtime that actually answers, within about `timeoutMs`.
 *
 * Testcontainers only checks that a socket file exists and then waits a long time for a daemon
 * that may not be there; a machine with the docker CLI but no daemon would stall every test run.
 * So we ask each candidate for `GET /_ping` ourselves: DOCKER_HOST when set (and then only it,
 * as Testcontainers would use it), otherwise the usual rootful and rootless socket paths.
 */
export async function detectContainerRuntime(timeoutMs = 1000): Promise<ContainerRuntimeHost | undefined> {
  const candidates = process.env.DOCKER_HOST ? [process.env.DOCKER_HOST] : defaultSockets();
  // Asked all at once, so a machine with several dead sockets still answers within one timeout.
  const answers = await Promise.all(candidates.map((host) => answersPing(host, timeoutMs)));
  return candidates.find((_, index) => answers[index]);
}

function defaultSockets(): ContainerRuntimeHost[] {
  const paths = [
    '/var/run/docker.sock',
    process.env.XDG_RUNTIME_DIR && join(process.env.XDG_RUNTIME_DIR, 'docker.sock'),
    join(homedir(), '.docker', 'run', 'docker.sock'),
    join(homedir(), '.docker', 'desktop', 'docker.sock'),
    join('/run', 'user', String(userInfo().uid), 'docker.sock'),
  ];
  return [...new Set(paths.filter((path): path is string => !!path && existsSync(path)))].map((path) => `unix://${path}`);
}

function answersPing(host: ContainerRuntimeHost, timeoutMs: number): Promise<boolean> {
  const target = pingTarget(host);
  if (!target) return Promise.resolve(false);
  return new Promise((resolve) => {
    const req = request({ ...target, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Maps a DOCKER_HOST value to http.request options; undefined for schemes we cannot probe. */
function pingTarget(host: ContainerRuntimeHost): { socketPath: string } | { host: string; port: number } | undefined {
  if (host.startsWith('unix://')) {
    const socketPath = host.slice('unix://'.length);
    return existsSync(socketPath) ? { socketPath } : undefined;
  }
  if (host.startsWith('tcp://')) {
    // A TLS-protected daemon (DOCKER_TLS_VERIFY) would need its client certificates; not supported here.
    const url = new URL(host.replace(/^tcp:/, 'http:'));
    return { host: url.hostname, port: Number(url.port || 2375) };
  }
  return undefined;
}

import { execFile } from 'node:child_process';
import { chownSync, cpSync, mkdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { DockerInstruction, execForm } from './dockerfile';

const run = promisify(execFile);

/** An OS account: the image's `USER`, played by an unprivileged user of this machine. */
export interface Account {
  uid: number;
  gid: number;
}

/** What a stage's instructions leave behind for running the container. */
export interface ImageConfig {
  env: Record<string, string>;
  cmd: string[];
  healthcheck: string[];
  /** The `USER` the container runs as (its name in the image). */
  user: string;
}

export interface ImageInstallOptions {
  /** The folder standing in for the image's WORKDIR. */
  dir: string;
  /** The build context (the repository); the build stage's WORKDIR maps onto it, as its `COPY . .` made it. */
  context: string;
  buildWorkdir: string;
  /** Who plays the image's non-root `USER` (a `chown <user>:<group>` in a RUN goes to this account). */
  account: Account;
  /** Extra flags for `npm ci`: the local cache stands in for the registry. */
  npmCiFlags: string[];
  /** Times each step under its instruction's text. */
  timed: <T>(label: string, step: () => Promise<T>) => Promise<T>;
}

/**
 * Carries out a stage's instructions in a folder, as `docker build` would in the image. A RUN command it does not
 * know fails, so that a change to the Dockerfile makes this reproduction change with it.
 */
export async function installImage(instructions: DockerInstruction[], options: ImageInstallOptions): Promise<ImageConfig> {
  const config: ImageConfig = { env: {}, cmd: [], healthcheck: [], user: 'root' };
  for (const { keyword, args } of instructions) {
    switch (keyword) {
      case 'WORKDIR':
      case 'EXPOSE':
        break;
      case 'ENV':
        for (const pair of args.split(/\s+/)) {
          const [name, ...value] = pair.split('=');
          config.env[name] = value.join('=');
        }
        break;
      case 'COPY':
        copy(args, options);
        break;
      case 'RUN':
        for (const command of args.split('&&').map((part) => part.trim())) {
          await options.timed(command, () => runCommand(command, options));
        }
        break;
      case 'HEALTHCHECK':
        config.healthcheck = execForm(args.slice(args.indexOf(' CMD ') + 1));
        break;
      case 'CMD':
        config.cmd = execForm(args);
        break;
      case 'USER':
        config.user = args;
        break;
      default:
        throw new Error(`The container test cannot reproduce ${keyword} ${args}`);
    }
  }
  return config;
}

/** `COPY [--from=stage] [--chown=...] <src>... <dest>`: from the build stage means from the built repository. */
function copy(args: string, { dir, context, buildWorkdir }: ImageInstallOptions): void {
  const parts = args.split(/\s+/);
  const flags = parts.filter((part) => part.startsWith('--'));
  if (flags.some((flag) => flag.startsWith('--chown'))) throw new Error(`COPY --chown would make code writable: ${args}`);
  const paths = parts.filter((part) => !part.startsWith('--'));
  const destination = join(dir, paths.pop()!);
  const fromStage = flags.some((flag) => flag.startsWith('--from='));
  for (const source of paths) {
    const inContext = fromStage && isAbsolute(source) ? join(context, relative(buildWorkdir, source)) : join(context, source);
    const target = destination.endsWith('/') || paths.length > 1 ? join(destination, source.split('/').pop()!) : destination;
    cpSync(inContext, target, { recursive: true });
  }
}

async function runCommand(command: string, { dir, account, npmCiFlags }: ImageInstallOptions): Promise<void> {
  const [program, ...args] = command.split(/\s+/);
  if (program === 'npm' && args[0] === 'ci') {
    await run('npm', [...args, ...npmCiFlags], { cwd: dir });
  } else if (program === 'npm' && args[0] === 'cache') {
    // Cleaning the cache only slims the image's layer; here it would empty the cache the next install needs.
  } else if (program === 'mkdir' && args[0] === '-p') {
    for (const folder of args.slice(1)) mkdirSync(join(dir, folder), { recursive: true });
  } else if (program === 'chown' && args.length >= 2 && !args[0].startsWith('-')) {
    for (const path of args.slice(1)) chownSync(join(dir, path), account.uid, account.gid);
  } else {
    throw new Error(`The container test cannot reproduce RUN ${command}`);
  }
}

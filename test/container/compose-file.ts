import { readFileSync } from 'node:fs';

/** What the container test takes from one service of docker-compose.yml. */
export interface ComposeService {
  environment: Record<string, string>;
  /** `stop_grace_period` in milliseconds; Docker's default is 10 s. */
  stopGracePeriodMs: number;
  /** `build.target`, if given. */
  buildTarget?: string;
}

/**
 * Reads one service of a compose file. Covers the block-mapping YAML Conveyor's compose file uses (two-space
 * indentation, `KEY: value` scalars, optionally quoted); no flow mappings, anchors or `${VAR}` interpolation.
 */
export function readComposeService(path: string, service: string): ComposeService {
  const lines = readFileSync(path, 'utf8').split('\n');
  const body = blockUnder(lines, ['services', service]);
  const environment = scalarsOf(blockUnder(body, ['environment']));
  const own = scalarsOf(body);
  const build = scalarsOf(blockUnder(body, ['build']));
  return {
    environment,
    stopGracePeriodMs: own.stop_grace_period === undefined ? 10_000 : durationMs(own.stop_grace_period),
    buildTarget: build.target,
  };
}

/** The lines nested under the key path, dedented to column 0; empty when a key is missing. */
function blockUnder(lines: string[], path: string[]): string[] {
  let block = lines;
  for (const key of path) {
    const start = block.findIndex((line) => line === `${key}:` || line.startsWith(`${key}: `) || line.startsWith(`${key}:#`));
    if (start < 0) return [];
    const nested: string[] = [];
    for (const line of block.slice(start + 1)) {
      if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
      if (!line.startsWith('  ')) break;
      nested.push(line.slice(2));
    }
    block = nested;
  }
  return block;
}

/** The `key: scalar` lines at column 0 of a block. */
function scalarsOf(block: string[]): Record<string, string> {
  const scalars: Record<string, string> = {};
  for (const line of block) {
    const match = /^([A-Za-z_][\w.-]*):\s+(.+?)\s*$/.exec(line);
    if (!match) continue;
    const [, key, raw] = match;
    scalars[key] = /^(["']).*\1$/.test(raw) ? raw.slice(1, -1) : raw;
  }
  return scalars;
}

/** A compose duration (`30s`, `1m30s`, `500ms`) in milliseconds. */
function durationMs(text: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 0.001 };
  let total = 0;
  const rest = text.replace(/(\d+(?:\.\d+)?)(ms|us|h|m|s)/g, (_, amount: string, unit: string) => {
    total += Number(amount) * units[unit];
    return '';
  });
  if (rest !== '') throw new Error(`Not a compose duration: ${text}`);
  return total;
}

import { LogLevel } from '@nestjs/common';
import {
  ConveyorConfigError,
  ConveyorOptionsInput,
  isLogFormat,
  isLogLevel,
  isPostgresUrl,
  LOG_FORMATS,
  LOG_LEVELS,
  LogFormat,
  MAX_DRAIN_MS,
} from '@conveyor/core';
import {
  API_ROLES,
  ApiKeyOption,
  ApiRole,
  MAX_BODY_LIMIT_BYTES,
  MAX_RATE_LIMIT_MAX,
  MAX_RATE_LIMIT_WINDOW_MS,
  MIN_BODY_LIMIT_BYTES,
} from '@conveyor/core/http';
import { databaseUrlCredentialsProblem } from './database-url-credentials';
import { ENV_SETTINGS, EnvSetting } from './env-settings';

/** Settings of the service around the engine. */
export interface AppSettings {
  port: number;
  databaseUrl?: string;
  /** Data folder of the embedded PostgreSQL; default `<cwd>/.conveyor/pgdata`. */
  dataDir?: string;
  /** Port tried first for the embedded PostgreSQL (a free one when it is taken). */
  embeddedPort: number;
  schema: string;
  poolSize: number;
  poolTimeoutMs: number;
  bodyLimitBytes: number;
  /** API keys; none = no authentication (dev mode). */
  apiKeys: ApiKeyOption[];
  rateLimitWindowMs: number;
  /** 0 = no rate limit. */
  rateLimitMax: number;
  /** Live events: the most unsent bytes a reader may lag by before it is dropped. */
  liveMaxBufferBytes: number;
  /** Live events: how often an idle stream is pinged. */
  livePingIntervalMs: number;
  logLevel: LogLevel;
  /** Default: json when NODE_ENV=production, pretty otherwise. */
  logFormat: LogFormat;
  smtpUrl?: string;
  emailFrom: string;
  outboxDir: string;
  webhookTimeoutMs: number;
  /** Whether SEND_WEBHOOK and FORWARD_DOCUMENT may connect to loopback, private and other non-public addresses. */
  allowPrivateNetworks: boolean;
  pdfDir: string;
  /** On SIGTERM, how long to report not ready while still serving before the engine stops (0 = none). */
  shutdownDrainMs: number;
}

export interface AppConfig {
  app: AppSettings;
  engine: ConveyorOptionsInput;
}

const APP_DEFAULTS: AppSettings = {
  port: 3000,
  // Apart from a system server's 5432.
  embeddedPort: 54329,
  schema: 'public',
  poolSize: 10,
  poolTimeoutMs: 3000,
  bodyLimitBytes: 1024 * 1024,
  apiKeys: [],
  rateLimitWindowMs: 60_000,
  rateLimitMax: 6_000,
  liveMaxBufferBytes: 1024 * 1024,
  livePingIntervalMs: 15_000,
  logLevel: 'log',
  logFormat: 'pretty',
  emailFrom: 'conveyor@localhost',
  outboxDir: './.conveyor/outbox',
  webhookTimeoutMs: 10_000,
  allowPrivateNetworks: false,
  pdfDir: './.conveyor/pdfs',
  shutdownDrainMs: 5_000,
};

/** Thrown for a bad environment variable; names it. */
export class EnvConfigError extends Error {
  constructor(env: string, problem: string) {
    super(`Invalid environment variable ${env}: ${problem}`);
    this.name = 'EnvConfigError';
  }
}

function parse(setting: EnvSetting, raw: string): unknown {
  const fail = (problem: string): never => {
    throw new EnvConfigError(setting.env, problem);
  };
  switch (setting.kind) {
    case 'int':
      return /^-?\d+$/.test(raw.trim()) ? Number(raw) : fail(`expected an integer, got "${raw}"`);
    case 'int-or-auto':
      if (raw.trim() === 'auto') return 'auto';
      return /^-?\d+$/.test(raw.trim()) ? Number(raw) : fail(`expected an integer or auto, got "${raw}"`);
    case 'number':
      // Decimal only: Number() also reads "0x10" (16), "0b1" and "1e1", which nobody means for a factor or a fraction.
      return /^-?(\d+\.?\d*|\.\d+)$/.test(raw.trim()) ? Number(raw) : fail(`expected a decimal number, got "${raw}"`);
    case 'bool':
      if (/^(true|1|yes|on)$/i.test(raw)) return true;
      if (/^(false|0|no|off)$/i.test(raw)) return false;
      return fail(`expected true or false, got "${raw}"`);
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'map': {
      const pairs = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((pair) => {
          // Queue names may hold colons themselves (`tenant-1:emails:5`): the number follows the last one.
          const at = pair.lastIndexOf(':');
          const k = pair.slice(0, Math.max(at, 0)).trim();
          const v = pair.slice(at + 1).trim();
          if (at < 0 || !k || !/^\d+$/.test(v)) fail(`expected name:number pairs, got "${pair}"`);
          return [k, Number(v)] as const;
        });
      // A name given twice would keep only its last number, without a word.
      const twice = pairs.find(([k], i) => pairs.findIndex(([other]) => other === k) !== i);
      if (twice) fail(`"${twice[0]}" is given more than once`);
      return Object.fromEntries(pairs);
    }
    case 'keys':
      return parseApiKeys(raw, fail);
    case 'json':
      try {
        return JSON.parse(raw) as unknown;
      } catch (err) {
        return fail(`expected JSON: ${(err as Error).message}`);
      }
    default:
      return raw;
  }
}

/** `role:key,role:key`. Problems name the entry by position: echoing it would print a key. */
function parseApiKeys(raw: string, fail: (problem: string) => never): ApiKeyOption[] {
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return entries.map((entry, i) => {
    const colon = entry.indexOf(':');
    const role = entry.slice(0, colon).trim();
    const key = entry.slice(colon + 1).trim();
    if (colon < 0 || !key) fail(`entry ${i + 1} of ${entries.length} is not role:key`);
    if (!API_ROLES.includes(role as ApiRole)) {
      fail(`entry ${i + 1} of ${entries.length} has an unknown role; expected ${API_ROLES.map((r) => `${r}:<key>`).join(' or ')}`);
    }
    if (!/^[\x21-\x7e]+$/.test(key)) fail(`the key of entry ${i + 1} of ${entries.length} must be visible ASCII without spaces`);
    return { role: role as ApiRole, key };
  });
}

function assign(target: Record<string, unknown>, path: string, value: unknown): void {
  const [head, ...rest] = path.split('.');
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  target[head] = (target[head] as Record<string, unknown>) ?? {};
  assign(target[head] as Record<string, unknown>, rest.join('.'), value);
}

/**
 * Reads the environment into app and engine settings — the one place env vars are parsed.
 * Engine values are validated again (ranges) by the engine's own validateConveyorOptions, whose
 * errors are translated back to the variable's name here.
 */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const app: Record<string, unknown> = { ...APP_DEFAULTS };
  const engine: Record<string, unknown> = {};
  for (const setting of ENV_SETTINGS) {
    const raw = env[setting.env];
    if (raw === undefined || raw === '') continue;
    assign(setting.scope === 'app' ? app : engine, setting.target, parse(setting, raw));
  }
  const settings = app as unknown as AppSettings;
  if (settings.port < 0 || settings.port > 65535) throw new EnvConfigError('PORT', 'must be between 0 and 65535');
  if (settings.embeddedPort < 1 || settings.embeddedPort > 65535)
    throw new EnvConfigError('EMBEDDED_PG_PORT', 'must be between 1 and 65535');
  // pg also reads a socket directory and database ("/var/run/postgresql mydb") and socket: URLs.
  const url = settings.databaseUrl;
  if (url !== undefined && !isPostgresUrl(url) && !url.startsWith('/') && !url.startsWith('socket:'))
    throw new EnvConfigError('DATABASE_URL', 'must be a connection URL such as postgres://user:password@host:5432/database');
  const urlProblem = url !== undefined && isPostgresUrl(url) ? databaseUrlCredentialsProblem(url) : null;
  if (urlProblem) throw new EnvConfigError('DATABASE_URL', urlProblem);
  if (settings.poolSize < 1 || settings.poolSize > 500) throw new EnvConfigError('DB_POOL_SIZE', 'must be between 1 and 500');
  // 0 would be pg's "wait for ever": a request must get its 503 instead of hanging on a full pool.
  if (settings.poolTimeoutMs < 1 || settings.poolTimeoutMs > 600_000)
    throw new EnvConfigError('DB_POOL_TIMEOUT_MS', 'must be between 1 and 600000');
  // The HTTP module's own bounds (configureHttp, validateConveyorHttpOptions), checked here so the refusal names the variable.
  if (settings.bodyLimitBytes < MIN_BODY_LIMIT_BYTES || settings.bodyLimitBytes > MAX_BODY_LIMIT_BYTES)
    throw new EnvConfigError('BODY_LIMIT_BYTES', `must be between ${MIN_BODY_LIMIT_BYTES} and ${MAX_BODY_LIMIT_BYTES}`);
  if (settings.rateLimitWindowMs < 1 || settings.rateLimitWindowMs > MAX_RATE_LIMIT_WINDOW_MS)
    throw new EnvConfigError('RATE_LIMIT_WINDOW_MS', `must be between 1 and ${MAX_RATE_LIMIT_WINDOW_MS}`);
  if (settings.shutdownDrainMs < 0 || settings.shutdownDrainMs > MAX_DRAIN_MS)
    throw new EnvConfigError('SHUTDOWN_DRAIN_MS', `must be between 0 and ${MAX_DRAIN_MS}`);
  if (settings.rateLimitMax < 0 || settings.rateLimitMax > MAX_RATE_LIMIT_MAX)
    throw new EnvConfigError('RATE_LIMIT_MAX', `must be between 0 (no limit) and ${MAX_RATE_LIMIT_MAX}`);
  // A Node timer waits at most 2^31 - 1 ms and fires after 1 ms when given more: every request would time out at once.
  if (settings.webhookTimeoutMs < 1 || settings.webhookTimeoutMs > 3_600_000)
    throw new EnvConfigError('WEBHOOK_TIMEOUT_MS', 'must be between 1 and 3600000');
  if (settings.liveMaxBufferBytes < 1024 || settings.liveMaxBufferBytes > 1024 ** 3)
    throw new EnvConfigError('LIVE_MAX_BUFFER_BYTES', 'must be between 1024 and 1073741824');
  if (settings.livePingIntervalMs < 100 || settings.livePingIntervalMs > 3_600_000)
    throw new EnvConfigError('LIVE_PING_INTERVAL_MS', 'must be between 100 and 3600000');
  // JSON lines call Nest's `log` level `info`, so that name is accepted for it too.
  if ((settings.logLevel as string) === 'info') settings.logLevel = 'log';
  if (!isLogLevel(settings.logLevel))
    throw new EnvConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}, got "${settings.logLevel}"`);
  if (!env.LOG_FORMAT) settings.logFormat = env.NODE_ENV === 'production' ? 'json' : 'pretty';
  if (!isLogFormat(settings.logFormat))
    throw new EnvConfigError('LOG_FORMAT', `expected ${LOG_FORMATS.join(' or ')}, got "${settings.logFormat}"`);
  return { app: settings, engine: engine as ConveyorOptionsInput };
}

/** Maps an engine option error back to the environment variable that set it. */
export function envNameFor(err: unknown): unknown {
  if (!(err instanceof ConveyorConfigError)) return err;
  // Fields of list settings are indexed: `schedules[0].cron` belongs to CRON_SCHEDULES.
  const setting = ENV_SETTINGS.find(
    (s) => s.target === err.field || err.field.startsWith(`${s.target}.`) || err.field.startsWith(`${s.target}[`),
  );
  return setting ? new EnvConfigError(setting.env, err.message) : err;
}

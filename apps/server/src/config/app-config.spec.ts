import { validateConveyorOptions } from '@conveyor/core';
import { envNameFor, loadAppConfig } from './app-config';

describe('loadAppConfig: API keys and rate limit', () => {
  const SECRET = 's3cr3t-key-that-must-not-leak';

  it('reads role:key pairs, several per role, and the rate limit', () => {
    const config = loadAppConfig({
      API_KEYS: ` producer:p1 , producer:p2,admin:${SECRET},`,
      RATE_LIMIT_WINDOW_MS: '1000',
      RATE_LIMIT_MAX: '50',
    });
    expect(config.app.apiKeys).toEqual([
      { role: 'producer', key: 'p1' },
      { role: 'producer', key: 'p2' },
      { role: 'admin', key: SECRET },
    ]);
    expect(config.app).toMatchObject({ rateLimitWindowMs: 1000, rateLimitMax: 50 });
  });

  it('defaults to no keys and a generous limit', () => {
    expect(loadAppConfig({}).app).toMatchObject({ apiKeys: [], rateLimitWindowMs: 60_000, rateLimitMax: 6_000 });
  });

  it.each([
    ['a key without a role', SECRET],
    ['an unknown role', `root:${SECRET}`],
    ['a misspelt role', `admn:${SECRET}`],
    ['an empty key', 'admin:'],
    ['a key with a space', `admin:${SECRET} ${SECRET}`],
  ])('fails on %s, naming API_KEYS without echoing the key', (_case, value) => {
    let error: Error | undefined;
    try {
      loadAppConfig({ API_KEYS: `producer:fine,${value}` });
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toMatch(/^Invalid environment variable API_KEYS: .*entry 2 of 2/);
    expect(error?.message).not.toContain(SECRET);
    expect(error?.message).not.toContain('fine');
  });

  it('refuses a DATABASE_URL pg cannot read as one, without repeating it; takes the forms pg reads', () => {
    expect(() => loadAppConfig({ DATABASE_URL: 'not-a-url' })).toThrow(/DATABASE_URL.*must be a connection URL/);
    expect(() => loadAppConfig({ DATABASE_URL: 'mysql://root:secret@db/app' })).toThrow(/DATABASE_URL/);
    expect(() => loadAppConfig({ DATABASE_URL: 'mysql://root:secret@db/app' })).not.toThrow(/secret/);
    for (const url of [
      'postgresql://u:p@db:5432/app',
      'postgres://u:p@/app?host=/cloudsql/project:region:instance',
      '/var/run/postgresql app',
      'socket:/var/run/postgresql?db=app',
    ]) {
      expect(loadAppConfig({ DATABASE_URL: url }).app.databaseUrl).toBe(url);
    }
  });

  it('refuses a DATABASE_URL whose password has a bare "%", without repeating it; takes it percent-encoded', () => {
    expect(() => loadAppConfig({ DATABASE_URL: 'postgres://app:50%off@db/app' })).toThrow(/DATABASE_URL: .*write "%" as %25/);
    expect(() => loadAppConfig({ DATABASE_URL: 'postgres://app:50%off@db/app' })).not.toThrow(/50%off/);
    for (const url of ['postgres://app:50%25off@db/app', 'postgres://app:p%40ss:w0rd@db:5432/app', 'postgres://app@db/app%zz']) {
      expect(loadAppConfig({ DATABASE_URL: url }).app.databaseUrl).toBe(url);
    }
  });

  it('refuses a pool timeout that is no bound (0, negative, or beyond 10 minutes)', () => {
    for (const value of ['0', '-1', '600001']) expect(() => loadAppConfig({ DB_POOL_TIMEOUT_MS: value })).toThrow(/DB_POOL_TIMEOUT_MS/);
    expect(loadAppConfig({ DB_POOL_TIMEOUT_MS: '500' }).app.poolTimeoutMs).toBe(500);
  });

  it('reads QUEUE_CONCURRENCY as name:number pairs, the number after the last colon, refusing a name given twice', () => {
    expect(loadAppConfig({ QUEUE_CONCURRENCY: 'emails:5, pdf : 2' }).engine).toMatchObject({ queueConcurrency: { emails: 5, pdf: 2 } });
    // Queue names may hold colons: the cap is the number after the last one.
    expect(loadAppConfig({ QUEUE_CONCURRENCY: 'tenant-1:emails:3' }).engine).toMatchObject({ queueConcurrency: { 'tenant-1:emails': 3 } });
    for (const pair of ['emails:5x', 'emails', ':5', 'emails:'])
      expect(() => loadAppConfig({ QUEUE_CONCURRENCY: pair })).toThrow(
        `Invalid environment variable QUEUE_CONCURRENCY: expected name:number pairs, got "${pair}"`,
      );
    // A name no queue can have is the engine's refusal, named as the variable.
    const config = loadAppConfig({ QUEUE_CONCURRENCY: 'e/mails:5' });
    expect(() => validateConveyorOptions(config.engine)).toThrow(/"queueConcurrency\.e\/mails": is not a queue name/);
    expect(() => {
      try {
        validateConveyorOptions(config.engine);
      } catch (err) {
        throw envNameFor(err);
      }
    }).toThrow(/^Invalid environment variable QUEUE_CONCURRENCY: .*is not a queue name/);
    expect(() => loadAppConfig({ QUEUE_CONCURRENCY: 'emails:5,pdf:2,emails:1' })).toThrow(
      'Invalid environment variable QUEUE_CONCURRENCY: "emails" is given more than once',
    );
  });

  it('refuses a negative limit and an empty window', () => {
    expect(() => loadAppConfig({ RATE_LIMIT_MAX: '-1' })).toThrow(/RATE_LIMIT_MAX/);
    expect(() => loadAppConfig({ RATE_LIMIT_WINDOW_MS: '0' })).toThrow(/RATE_LIMIT_WINDOW_MS/);
  });
});

describe('loadAppConfig: logging', () => {
  it('reads the live-event bounds and refuses ones out of range, naming the variable', () => {
    expect(loadAppConfig({}).app).toMatchObject({ liveMaxBufferBytes: 1024 * 1024, livePingIntervalMs: 15_000 });
    expect(loadAppConfig({ LIVE_MAX_BUFFER_BYTES: '65536', LIVE_PING_INTERVAL_MS: '5000' }).app).toMatchObject({
      liveMaxBufferBytes: 65536,
      livePingIntervalMs: 5000,
    });
    expect(() => loadAppConfig({ LIVE_MAX_BUFFER_BYTES: '10' })).toThrow(/LIVE_MAX_BUFFER_BYTES/);
    expect(() => loadAppConfig({ LIVE_PING_INTERVAL_MS: '0' })).toThrow(/LIVE_PING_INTERVAL_MS/);
  });

  it('defaults to JSON lines in production and the console format elsewhere', () => {
    expect(loadAppConfig({ NODE_ENV: 'production' }).app).toMatchObject({ logFormat: 'json', logLevel: 'log' });
    expect(loadAppConfig({}).app.logFormat).toBe('pretty');
    expect(loadAppConfig({ LOG_LEVEL: 'info' }).app.logLevel).toBe('log'); // the name JSON lines use for it
    expect(loadAppConfig({ NODE_ENV: 'production', LOG_FORMAT: 'pretty', LOG_LEVEL: 'debug' }).app).toMatchObject({
      logFormat: 'pretty',
      logLevel: 'debug',
    });
  });

  it('refuses an unknown level or format, naming the variable', () => {
    expect(() => loadAppConfig({ LOG_LEVEL: 'trace' })).toThrow(
      /LOG_LEVEL: expected one of fatal, error, warn, log, debug, verbose, got "trace"/,
    );
    expect(() => loadAppConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT: expected json or pretty/);
  });
});

describe('loadAppConfig: numeric bounds', () => {
  it('refuses a webhook timeout a timer cannot wait (0, negative, past 2^31 - 1 ms, where Node fires after 1 ms)', () => {
    for (const value of ['0', '-1', '3600001', '3000000000']) {
      expect(() => loadAppConfig({ WEBHOOK_TIMEOUT_MS: value })).toThrow(
        'Invalid environment variable WEBHOOK_TIMEOUT_MS: must be between 1 and 3600000',
      );
    }
    expect(loadAppConfig({ WEBHOOK_TIMEOUT_MS: '3600000' }).app.webhookTimeoutMs).toBe(3_600_000);
  });

  it('refuses a body limit past what one string can hold (a larger body would end the process), naming the variable', () => {
    for (const value of ['1023', '268435457', '1000000000']) {
      expect(() => loadAppConfig({ BODY_LIMIT_BYTES: value })).toThrow(
        'Invalid environment variable BODY_LIMIT_BYTES: must be between 1024 and 268435456',
      );
    }
    expect(loadAppConfig({ BODY_LIMIT_BYTES: '268435456' }).app.bodyLimitBytes).toBe(268_435_456);
  });

  it('refuses a rate limit past what the HTTP module takes, naming the variable rather than the module option', () => {
    expect(() => loadAppConfig({ RATE_LIMIT_WINDOW_MS: '86400001' })).toThrow(
      'Invalid environment variable RATE_LIMIT_WINDOW_MS: must be between 1 and 86400000',
    );
    expect(() => loadAppConfig({ RATE_LIMIT_MAX: '1000000001' })).toThrow(
      'Invalid environment variable RATE_LIMIT_MAX: must be between 0 (no limit) and 1000000000',
    );
    expect(loadAppConfig({ RATE_LIMIT_WINDOW_MS: '86400000', RATE_LIMIT_MAX: '1000000000' }).app).toMatchObject({
      rateLimitWindowMs: 86_400_000,
      rateLimitMax: 1_000_000_000,
    });
  });

  it('reads a backoff factor or jitter as a decimal number only, refusing hexadecimal, binary and exponent forms', () => {
    for (const value of ['0x10', '0b1', '1e1', 'Infinity']) {
      expect(() => loadAppConfig({ BACKOFF_FACTOR: value })).toThrow(`BACKOFF_FACTOR: expected a decimal number, got "${value}"`);
    }
    expect(() => loadAppConfig({ BACKOFF_JITTER: '0x1' })).toThrow(/BACKOFF_JITTER/);
    expect(loadAppConfig({ BACKOFF_FACTOR: ' 1.5 ', BACKOFF_JITTER: '.25' }).engine.backoff).toEqual({ factor: 1.5, jitter: 0.25 });
  });
});

describe('loadAppConfig: example handlers', () => {
  it('keeps SEND_WEBHOOK and FORWARD_DOCUMENT off private networks unless ALLOW_PRIVATE_NETWORKS says otherwise', () => {
    expect(loadAppConfig({}).app.allowPrivateNetworks).toBe(false);
    expect(loadAppConfig({ ALLOW_PRIVATE_NETWORKS: 'true' }).app.allowPrivateNetworks).toBe(true);
    expect(() => loadAppConfig({ ALLOW_PRIVATE_NETWORKS: 'internal' })).toThrow('Invalid environment variable ALLOW_PRIVATE_NETWORKS');
  });
});

describe('loadAppConfig: embedded PostgreSQL', () => {
  it('refuses an EMBEDDED_PG_PORT that is no TCP port at start-up, naming it', () => {
    expect(() => loadAppConfig({ EMBEDDED_PG_PORT: 'abc' })).toThrow(
      'Invalid environment variable EMBEDDED_PG_PORT: expected an integer, got "abc"',
    );
    for (const value of ['0', '65536']) {
      expect(() => loadAppConfig({ EMBEDDED_PG_PORT: value })).toThrow(
        'Invalid environment variable EMBEDDED_PG_PORT: must be between 1 and 65535',
      );
    }
    expect(loadAppConfig({}).app.embeddedPort).toBe(54329);
  });
});

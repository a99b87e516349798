import { inspect } from 'node:util';

/** Structured values attached to one log line. */
export type LogFields = Record<string, unknown>;

/**
 * A log message with structured fields, handed to Nest's `Logger` as the message itself:
 * `this.logger.warn(new LogRecord('Job attempt failed', { jobId, error }))`.
 *
 * One argument rather than `(message, fields)` because of how Nest's own ConsoleLogger treats extra
 * arguments: each becomes a log line of its own. A LogRecord instead renders as one readable line (the
 * message, then `key=value` pairs) wherever it is inspected or stringified, which is what ConsoleLogger
 * does with a non-string message; `JsonLogger` spreads its fields into the JSON object. Keep `msg` a
 * constant sentence and put what varies in the fields, so log tools can group lines by message.
 */
export class LogRecord {
  constructor(
    readonly msg: string,
    readonly fields: LogFields = {},
  ) {}

  /** `msg key=value ...`; multi-line values (stacks) follow on their own indented lines. */
  toString(): string {
    const inline: string[] = [];
    const blocks: string[] = [];
    for (const [key, value] of Object.entries(this.fields)) {
      if (value === undefined) continue;
      if (typeof value === 'string' && value.includes('\n')) blocks.push(`\n  ${key}: ${value.replace(/\n/g, '\n  ')}`);
      else inline.push(`${key}=${pretty(value)}`);
    }
    return [this.msg, ...inline].join(' ') + blocks.join('');
  }

  toJSON(): LogFields {
    return { msg: this.msg, ...this.fields };
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

function pretty(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

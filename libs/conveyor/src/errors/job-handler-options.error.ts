import { ConveyorConfigError } from './conveyor-config.error';

/**
 * A `@JobHandler` option is wrong — a concurrency of 0, a queue name submissions refuse, a timeout past a day.
 * Start-up fails with it (and `runJob`, which runs a handler with its settings); `field` names the option
 * (`@JobHandler('SEND_EMAIL').concurrency`).
 */
export class JobHandlerOptionsError extends ConveyorConfigError {
  constructor(field: string, problem: string) {
    super(field, problem);
    this.name = 'JobHandlerOptionsError';
    this.message = `Invalid job handler option "${field}": ${problem}`;
  }
}

import { Injectable } from '@nestjs/common';
import { Job, JobHandler, JobHandlerHost } from '@conveyor/core';

/** What the test tells {@link ControlledHandler}: jobs named in `failing` fail, held ones run until released. */
@Injectable()
export class HandlerControls {
  readonly failing = new Set<string>();
  private readonly gates = new Map<string, () => void>();
  private readonly waits = new Map<string, Promise<void>>();

  /** Jobs with this name will run until {@link release} is called. */
  hold(name: string): void {
    this.waits.set(name, new Promise((resolve) => this.gates.set(name, resolve)));
  }

  release(name: string): void {
    this.gates.get(name)?.();
  }

  /** Releases every held job (before closing the app, so shutdown need not wait out its grace period). */
  releaseAll(): void {
    for (const open of this.gates.values()) open();
  }

  gate(name: string): Promise<void> {
    return this.waits.get(name) ?? Promise.resolve();
  }
}

/**
 * TEST_CONTROLLED: a handler the test steers by payload name — a RUNNING job for as long as the test
 * wants, or a DEAD one (one attempt) that succeeds once the test stops failing it.
 */
@JobHandler('TEST_CONTROLLED', { maxAttempts: 1 })
export class ControlledHandler extends JobHandlerHost<{ name: string }> {
  constructor(private readonly controls: HandlerControls) {
    super();
  }

  async handle(job: Job<{ name: string }>): Promise<{ done: string }> {
    await this.controls.gate(job.payload.name);
    if (this.controls.failing.has(job.payload.name)) throw new Error(`${job.payload.name}: downstream is down`);
    return { done: job.payload.name };
  }
}

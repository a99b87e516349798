import { Injectable } from '@nestjs/common';
import { MESSAGES } from '../errors/conveyor.messages';
import { JobHandlerDefinitionError } from '../errors/job-handler-definition.error';
import { RegisteredHandler } from './registered-handler.interface';

/** The runtime lookup from job type to its handler. Refuses a second handler for the same type. */
@Injectable()
export class HandlerRegistry {
  private readonly handlers = new Map<string, RegisteredHandler>();

  register(handler: RegisteredHandler): void {
    const existing = this.handlers.get(handler.type);
    if (existing) {
      throw new JobHandlerDefinitionError(MESSAGES.duplicateHandler(handler.type, existing.className, handler.className));
    }
    this.handlers.set(handler.type, handler);
  }

  get(type: string): RegisteredHandler | undefined {
    return this.handlers.get(type);
  }

  has(type: string): boolean {
    return this.handlers.has(type);
  }

  /** Every type with an in-process handler. */
  types(): string[] {
    return [...this.handlers.keys()];
  }

  all(): RegisteredHandler[] {
    return [...this.handlers.values()];
  }
}

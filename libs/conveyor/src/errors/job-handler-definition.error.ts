/** A @JobHandler class is wrong (duplicate type, no handle method): start-up fails with this. */
export class JobHandlerDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobHandlerDefinitionError';
  }
}

/** A configuration value is missing or out of range; `field` names it. */
export class ConveyorConfigError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`Invalid Conveyor option "${field}": ${problem}`);
    this.name = 'ConveyorConfigError';
  }
}

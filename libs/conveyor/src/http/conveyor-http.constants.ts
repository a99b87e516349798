/** DI token of the validated {@link ConveyorHttpSettings}. */
export const CONVEYOR_HTTP_SETTINGS = Symbol('CONVEYOR_HTTP_SETTINGS');

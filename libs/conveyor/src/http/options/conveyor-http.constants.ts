/** DI token of the validated {@link ConveyorHttpSettings}. */
export const CONVEYOR_HTTP_SETTINGS = Symbol('CONVEYOR_HTTP_SETTINGS');
/** DI token of the normalized `path` extra (`'jobs-api'`), provided only when the module has one. */
export const CONVEYOR_HTTP_MOUNT_PATH = Symbol('CONVEYOR_HTTP_MOUNT_PATH');

/** The engine's release, as instances report it in `conveyor_instances` (kept equal to libs/conveyor/package.json). */
export const CONVEYOR_VERSION = '0.1.0';

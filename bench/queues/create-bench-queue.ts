import { ConveyorQueue } from '../conveyor/conveyor-queue';
import { FloorQueue } from '../floor/floor-queue';
import { isFloorVariant, Variant } from '../shared/bench-case';
import { BenchQueue } from '../shared/bench-queue.interface';

/** The queue a variant names, on the given schema. */
export function createBenchQueue(variant: Variant, url: string, schema: string, appName: string): BenchQueue {
  return isFloorVariant(variant) ? new FloorQueue(variant, url, schema, appName) : new ConveyorQueue(variant, url, schema, appName);
}

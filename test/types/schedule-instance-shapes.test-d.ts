/**
 * The documented answers of the schedules and instances routes (the OpenAPI DTOs) and the client's copies of them are
 * the engine's shapes as JSON: a field added, removed or retyped on one side only fails `npm run typecheck` here.
 */
import type * as Client from '@conveyor/client';
import type { ScheduleState } from '@conveyor/core';
import type { InstanceDto, ScheduleDto } from '@conveyor/core/http/dto';
import type { InstanceState } from '@conveyor/core/maintenance/instance-registry.service';
import type { Equal, Expect, Wire } from './type-equality';

export type ScheduleInstanceShapeChecks = [
  Expect<Equal<ScheduleDto, Wire<ScheduleState>>>,
  Expect<Equal<InstanceDto, Wire<InstanceState>>>,
  Expect<Equal<Client.Schedule, Wire<ScheduleState>>>,
  Expect<Equal<Client.Instance, Wire<InstanceState>>>,
];

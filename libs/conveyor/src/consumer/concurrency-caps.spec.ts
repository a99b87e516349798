import { ConcurrencyCaps } from './concurrency-caps';

const job = (queue: string, type: string) => ({ queue, type });

describe('ConcurrencyCaps', () => {
  it('lets a job start while its queue and its type are under their caps', () => {
    const caps = new ConcurrencyCaps({ mail: 2 });
    expect(caps.mayStart(job('mail', 'SEND'), 1)).toBe(true);
    caps.started(job('mail', 'SEND'));
    // The type is at its cap of 1; another type in the same queue may still start.
    expect(caps.mayStart(job('mail', 'SEND'), 1)).toBe(false);
    expect(caps.mayStart(job('mail', 'BOUNCE'), null)).toBe(true);
    caps.started(job('mail', 'BOUNCE'));
    // The queue is at its cap of 2; other queues are not capped.
    expect(caps.mayStart(job('mail', 'OTHER'), null)).toBe(false);
    expect(caps.mayStart(job('default', 'OTHER'), null)).toBe(true);
    caps.ended(job('mail', 'SEND'));
    expect(caps.mayStart(job('mail', 'OTHER'), null)).toBe(true);
    expect(caps.mayStart(job('mail', 'SEND'), 1)).toBe(true);
  });

  it('scopes a claim to the types and queues under their caps, counting buffered jobs as running', () => {
    const caps = new ConcurrencyCaps({ mail: 2, reports: 5 });
    const types = [
      { type: 'SEND', concurrency: 2 },
      { type: 'BOUNCE', concurrency: null },
    ];
    expect(caps.claimScope(types, [])).toEqual({ types: ['SEND', 'BOUNCE'], excludedQueues: [], capped: false, room: null });

    caps.started(job('mail', 'SEND'));
    expect(caps.claimScope(types, [job('mail', 'SEND')])).toEqual({
      types: ['BOUNCE'],
      excludedQueues: ['mail'],
      capped: true,
      room: null,
    });
    // Starting a buffered job does not change the claim's scope.
    caps.started(job('mail', 'SEND'));
    expect(caps.claimScope(types, [])).toEqual({ types: ['BOUNCE'], excludedQueues: ['mail'], capped: true, room: null });
    caps.ended(job('mail', 'SEND'));
    caps.ended(job('mail', 'SEND'));
    expect(caps.claimScope(types, [job('default', 'BOUNCE')])).toEqual({
      types: ['SEND', 'BOUNCE'],
      excludedQueues: [],
      capped: false,
      room: null,
    });
  });

  it('gives the room left under the type caps when every type in scope is capped, and none when one is not', () => {
    const caps = new ConcurrencyCaps({});
    const capped = [
      { type: 'SEND', concurrency: 2 },
      { type: 'RENDER', concurrency: 3 },
    ];
    expect(caps.claimScope(capped, []).room).toBe(5);
    caps.started(job('default', 'SEND'));
    expect(caps.claimScope(capped, [job('default', 'RENDER')]).room).toBe(3);
    // A type at its cap is out of scope and adds nothing.
    expect(caps.claimScope(capped, [job('default', 'SEND')])).toMatchObject({ types: ['RENDER'], room: 3 });
    expect(caps.claimScope([...capped, { type: 'FREE', concurrency: null }], []).room).toBeNull();
  });
});

import { ConveyorEvents } from './conveyor-events.service';

describe('ConveyorEvents', () => {
  it('calls every listener of an event in the order they were added, with the arguments', () => {
    const events = new ConveyorEvents();
    const calls: string[] = [];
    events.on('rescued', (n) => calls.push(`a${n}`));
    events.on('rescued', (n) => calls.push(`b${n}`));
    events.on('stale', (id) => calls.push(`s${id}`));
    events.emit('rescued', 7, []);
    expect(calls).toEqual(['a7', 'b7']);
  });

  it('stops calling a listener once its disposer ran, and a second call of the disposer changes nothing', () => {
    const events = new ConveyorEvents();
    const calls: string[] = [];
    const offA = events.on('rescued', () => calls.push('a'));
    events.on('rescued', () => calls.push('b'));
    offA();
    offA();
    events.emit('rescued', 1, []);
    expect(calls).toEqual(['b']);
  });

  it('finishes an emit with the listeners it started with, whatever they add or remove meanwhile', () => {
    const events = new ConveyorEvents();
    const calls: string[] = [];
    let offB: () => void = () => undefined;
    events.on('rescued', () => {
      calls.push('a');
      offB();
      events.on('rescued', () => calls.push('late'));
    });
    offB = events.on('rescued', () => calls.push('b'));
    events.emit('rescued', 1, []);
    expect(calls).toEqual(['a', 'b']);
    calls.length = 0;
    events.emit('rescued', 1, []);
    expect(calls).toEqual(['a', 'late']);
  });

  it('emits to nobody without complaint', () => {
    expect(() => new ConveyorEvents().emit('rescued', 1, [])).not.toThrow();
  });
});

import { ConveyorEvents } from './conveyor-events.service';

describe('ConveyorEvents', () => {
  it('calls every listener of an event in the order they were added, with the arguments', () => {
    const events = new ConveyorEvents();
    const calls: string[] = [];
    events.on('requeued', (at) => calls.push(`a${at}`));
    events.on('requeued', (at) => calls.push(`b${at}`));
    events.on('rescued', (n) => calls.push(`r${n}`));
    events.emit('requeued', 7);
    expect(calls).toEqual(['a7', 'b7']);
  });

  it('stops calling a listener once its disposer ran, and a second call of the disposer changes nothing', () => {
    const events = new ConveyorEvents();
    const calls: string[] = [];
    const offA = events.on('capacity', () => calls.push('a'));
    events.on('capacity', () => calls.push('b'));
    offA();
    offA();
    events.emit('capacity');
    expect(calls).toEqual(['b']);
  });

  it('finishes an emit with the listeners it started with, whatever they add or remove meanwhile', () => {
    const events = new ConveyorEvents();
    const calls: string[] = [];
    let offB: () => void = () => undefined;
    events.on('capacity', () => {
      calls.push('a');
      offB();
      events.on('capacity', () => calls.push('late'));
    });
    offB = events.on('capacity', () => calls.push('b'));
    events.emit('capacity');
    expect(calls).toEqual(['a', 'b']);
    calls.length = 0;
    events.emit('capacity');
    expect(calls).toEqual(['a', 'late']);
  });

  it('emits to nobody without complaint', () => {
    expect(() => new ConveyorEvents().emit('maintained')).not.toThrow();
  });
});

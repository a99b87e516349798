import { thrownMessage, thrownStack, thrownText } from './thrown-text';

/** An Error whose `key` getter throws `what`. */
function errorThrowingOn(key: 'name' | 'message' | 'stack', what: unknown): Error {
  const error = new Error('kept');
  Object.defineProperty(error, key, {
    get() {
      throw what;
    },
  });
  return error;
}

describe('thrownText, thrownMessage and thrownStack never throw', () => {
  it('describe errors and other values as before', () => {
    expect(thrownText(new TypeError('boom'))).toBe('TypeError: boom');
    expect(thrownText('a string')).toBe('Non-error thrown: "a string"');
    expect(thrownText(undefined)).toBe('Non-error thrown: undefined');
    expect(thrownText(10n)).toBe('Non-error thrown: 10');
    expect(thrownMessage(new Error('boom'))).toBe('boom');
    expect(thrownMessage(null)).toBe('Non-error thrown: null');
  });

  it('keep what can be read of an error whose name, message or stack getter throws', () => {
    expect(thrownText(errorThrowingOn('name', null))).toBe('Error: kept');
    const selfThrowing = errorThrowingOn('message', null);
    Object.defineProperty(selfThrowing, 'message', {
      get() {
        throw selfThrowing;
      },
    });
    expect(thrownText(selfThrowing)).toBe('Error: (unreadable)');
    expect(thrownMessage(selfThrowing)).toBe('(unreadable)');
    expect(thrownStack(errorThrowingOn('stack', null))).toBeUndefined();
  });

  it('describe a value whose toJSON and toString throw, and a proxy that throws when asked what it is', () => {
    const hostile = Object.assign(Object.create(null) as object, {
      toJSON: () => {
        throw null;
      },
    });
    expect(thrownText(hostile)).toBe('Non-error thrown: (unreadable)');
    const proxy: object = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw proxy;
        },
      },
    );
    expect(thrownText(proxy)).toBe('Non-error thrown: {}');
    expect(thrownStack(proxy)).toBeUndefined();
  });
});

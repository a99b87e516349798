import { isJsonObjectText } from './json-object-text.decorator';

describe('isJsonObjectText', () => {
  it('accepts JSON objects only', () => {
    expect(['{}', '{"a":1}', ' {"a":{"b":[1]}} '].map(isJsonObjectText)).toEqual([true, true, true]);
    expect(['', '{', '[]', '[{"a":1}]', 'null', '1', '"{}"', 'true'].map(isJsonObjectText)).toEqual(Array(8).fill(false));
    expect(isJsonObjectText({ a: 1 })).toBe(false);
  });
});

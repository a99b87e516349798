import { isJsonObjectText, jsonObjectTextProblem } from './json-object-text.decorator';

describe('isJsonObjectText', () => {
  it('accepts JSON objects only', () => {
    expect(['{}', '{"a":1}', ' {"a":{"b":[1]}} '].map(isJsonObjectText)).toEqual([true, true, true]);
    expect(['', '{', '[]', '[{"a":1}]', 'null', '1', '"{}"', 'true'].map(isJsonObjectText)).toEqual(Array(8).fill(false));
    expect(isJsonObjectText({ a: 1 })).toBe(false);
  });

  it('refuses what jsonb cannot read, naming where it is', () => {
    expect(jsonObjectTextProblem('{"a":"\\u0000"}', 'payload')).toMatch(/^payload\.a contains a NUL character/);
    expect(jsonObjectTextProblem('{"a\\u0000":1}', 'payload')).toMatch(/^payload\.a\\u0000 key contains a NUL character/);
    expect(jsonObjectTextProblem('{"a":["\\ud800"]}', 'payload')).toBe('payload.a[0] contains an unpaired UTF-16 surrogate');
    expect(jsonObjectTextProblem('{"a":"\\ud83d\\ude00"}', 'payload')).toBeNull();
    expect(jsonObjectTextProblem('[1]', 'payload')).toBe('payload must be a JSON object, e.g. {"customerId":42}');
  });
});

import { describe, expect, it } from 'vitest';
import { faultOf } from '../../src/log.js';

// A server fault's log line never carries the error's message: a database error's message can
// quote what a client sent (a username, a password).
describe('faultOf', () => {
  it('names the error and its database code, never its message', () => {
    const databaseError = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00 in "alice\\0 wonderland"'), { code: '22021' });
    expect(faultOf(databaseError)).toBe('Error (22021)');
    expect(faultOf(new TypeError('password hunter2 rejected'))).toBe('TypeError');
    expect(faultOf('hunter2')).toBe('string');
    expect(faultOf(Object.assign(new Error('x'), { code: 42 }))).toBe('Error');
  });
});

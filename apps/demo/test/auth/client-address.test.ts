import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../src/auth/login-throttle/client-address.js';

describe('clientAddress', () => {
  it.each<[string, { remoteAddress?: string } | undefined, string]>([
    ['an IPv4 peer', { remoteAddress: '127.0.0.1' }, '127.0.0.1'],
    ['an IPv4-mapped IPv6 peer, as the IPv4 address', { remoteAddress: '::ffff:192.0.2.7' }, '192.0.2.7'],
    ['an IPv6 peer', { remoteAddress: '2001:db8::1' }, '2001:db8::1'],
    ['an IPv6 peer that only starts like a mapped one', { remoteAddress: '::ffff:1' }, '::ffff:1'],
    ['a socket already closed', { remoteAddress: undefined }, 'unknown'],
    ['no socket', undefined, 'unknown'],
  ])('keys %s', (_name, socket, expected) => {
    expect(clientAddress(socket)).toBe(expected);
  });
});

import type { NewUser } from './users.js';

/**
 * The users seeded on first start. Their passwords are public on purpose: this is a demo, and
 * the docs page tells newcomers how to log in.
 *
 * @example
 * ```ts
 * DEMO_USERS.map((user) => user.username); // ['alice', 'bob']
 * ```
 */
export const DEMO_USERS: readonly NewUser[] = Object.freeze([
  {
    username: 'alice',
    password: 'wonderland',
    fullName: 'Alice Liddell',
    email: 'alice@example.com',
    scopes: ['me', 'items'],
    items: ['Pocket watch', 'Looking glass', 'Jar of orange marmalade'],
  },
  {
    username: 'bob',
    password: 'builder',
    fullName: 'Bob the Builder',
    email: 'bob@example.com',
    scopes: ['me'],
    items: ['Hard hat'],
  },
]);

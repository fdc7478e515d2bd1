import { expect, it } from 'vitest';
import { passwordRequestForm } from '../src/index.js';
it('parses', () => {
  expect(passwordRequestForm.parse(new URLSearchParams('username=a&username=b&password=p&scope=me++items&client_id='))).toMatchObject({ username: 'b', scopes: ['me', 'items'], client_id: null, grant_type: null });
  const r = passwordRequestForm.safeParse({ password: 'sekret', grant_type: 'Password' });
  expect(r.success).toBe(false);
  console.log(r.error?.message);
});

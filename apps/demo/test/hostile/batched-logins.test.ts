import { describe, expect, it } from 'vitest';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { postToken } from '../support/http.js';

// A batch of logins must not hold the CPU while another client's login waits: every password
// hash takes its turn in one queue, by request (docs/contract.md#token-responses).
const demo = demoForThisFile();

const BATCH = 10;

describe('logins sent in one tRPC batch', () => {
  it(`a login sent while a batch of ${BATCH} is being checked is answered before most of the batch`, async () => {
    const paths = Array.from({ length: BATCH }, () => 'auth.token').join(',');
    // Ten unknown users: each costs a full password check (against the dummy hash), and no
    // username's in-flight attempts reach its throttle limit.
    const inputs = Object.fromEntries(Array.from({ length: BATCH }, (_, i) => [i, { json: { username: `nobody-${i}`, password: 'guess' } }]));
    const batch = await fetch(`${demo.url}/trpc/${paths}?batch=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'trpc-accept': 'application/jsonl' },
      body: JSON.stringify(inputs),
    });
    expect(batch.status).toBe(200);
    // The batch streams each call's answer as it comes: count the refusals arrived so far.
    let answered = 0;
    const reading = (async () => {
      const decoder = new TextDecoder();
      const reader = batch.body!.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        answered += decoder.decode(chunk.value, { stream: true }).split('ERR_INVALID_GRANT').length - 1; // once per refusal (its data.oauth2.code)
      }
    })();
    const lone = await postToken(demo.url, { username: 'bob', password: 'builder' });
    const answeredBeforeLone = answered;
    expect(lone.status).toBe(200);
    await reading;
    expect(answered).toBe(BATCH);
    // Sent apart, the lone login would wait for at most one hash per requester ahead of it.
    expect(answeredBeforeLone).toBeLessThanOrEqual(3);
  }, 6 * TEST_TIMEOUT_MS);
});

// Takes one session's lock `times` times, and counts the holds that found another holder inside
// (a marker file only one holder at a time can create). Used by session-lock.test.ts.
import { open, rm } from 'node:fs/promises';

const [sessionModule, path, times] = process.argv.slice(2);
const { withSessionLock } = await import(sessionModule);
let overlaps = 0;
for (let i = 0; i < Number(times); i++) {
  await withSessionLock(path, async () => {
    let marker;
    try {
      marker = await open(`${path}.holder`, 'wx');
    } catch (error) {
      if (error.code === 'EEXIST') {
        overlaps++;
        return;
      }
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
    await marker.close();
    await rm(`${path}.holder`);
  });
}
process.stdout.write(JSON.stringify({ overlaps }));

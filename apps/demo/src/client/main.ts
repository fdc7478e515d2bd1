import { runClientFlow } from './flow.js';

// `npm run client -w apps/demo [-- URL]`: the typed client walk-through against a running server.
const url = (process.argv[2] ?? process.env.DEMO_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
console.log(`trpc-oauth2 demo client → ${url}`);
try {
  await runClientFlow(url, (line) => console.log(line));
  console.log('done: every step answered as expected');
} catch (error) {
  const cause = (error as { cause?: { code?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') console.error(`No server at ${url}: start it with \`npm start\` first.`);
  else console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

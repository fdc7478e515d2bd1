import { DataDirInUseError } from '../store/data-dir-lock.js';
import { DEMO_USERS } from '../store/seed.js';
import { configFromEnv } from './config.js';
import { PATHS } from './http-server.js';
import { start } from './start.js';

// The server as `npm start` runs it: configured by the environment, stopped by SIGINT/SIGTERM.
// A setting refused is said in one line (which setting, what it takes, what it got), without a stack.
let demoConfig: ReturnType<typeof configFromEnv>;
try {
  demoConfig = configFromEnv();
} catch (error) {
  console.error(String(error));
  process.exit(1);
}
try {
  const demo = await start(demoConfig);
  const { url, config } = demo;
  console.log(`trpc-oauth2 demo listening on ${url}`);
  console.log(`  Swagger UI   ${url}${PATHS.docs}`);
  console.log(`  OpenAPI      ${url}${PATHS.openapi}  (conformance: ${url}${PATHS.conformanceOpenapi})`);
  console.log(`  REST         ${url}${PATHS.rest}   token endpoint: POST ${url}${PATHS.token}`);
  console.log(`  tRPC         ${url}${PATHS.trpc}`);
  console.log(`  authorization server  ${url}${PATHS.authorizationServer}  (authorization code + PKCE; Swagger UI and the client log in there)`);
  console.log(`  data         ${config.databaseUrl ? 'PostgreSQL at DATABASE_URL, signing key in ' : ''}${config.dataDir}${demo.seeded.length > 0 ? ` (created; seeded ${demo.seeded.join(', ')})` : ''}`);
  console.log(`  log in as    ${DEMO_USERS.map((user) => `${user.username} / ${user.password} (${user.scopes.join(' ')})`).join(', ')}`);
  const stop = (signal: NodeJS.Signals) => {
    console.log(`${signal}: stopping`);
    demo.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('stopping failed:', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (code === 'EADDRINUSE') console.error(`The port is in use: PORT ${demoConfig.port} on ${demoConfig.host} is taken: set PORT to another one.`);
  // HOST and PORT passed every check of their form and still cannot be listened on: said as
  // the settings' other refusals are, naming the setting, not as a stack.
  else if (syscall === 'listen' && code === 'EACCES') {
    console.error(`PORT ${demoConfig.port} is a port this user may not listen on: set PORT to another one (1024 or above).`);
  } else if ((syscall === 'listen' && code === 'EADDRNOTAVAIL') || syscall === 'getaddrinfo') {
    console.error(`HOST ${JSON.stringify(demoConfig.host)} is not an address of this machine (${code}): set HOST to one of its addresses.`);
  } else if (error instanceof DataDirInUseError) console.error(error.message);
  else console.error(error);
  process.exit(1);
}

// The throwaway PostgreSQL server of the two-instance tests is the soak's own (`npm run soak --
// --instances 2` starts one the same way): one helper for both.
export { findPostgresBin, startPostgres, type TestPostgres } from '../../soak/postgres.js';

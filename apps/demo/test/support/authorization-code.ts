// The authorization server's pages over plain HTTP: shared with the soak's races at /oidc.
export * from '../../soak/authorization-code.js';

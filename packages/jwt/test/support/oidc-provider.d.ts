// The few parts of oidc-provider the test authorization server uses (the package ships no types).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    readonly Grant: new (init: { accountId: string; clientId: string }) => {
      addOIDCScope(scope: string): void;
      addResourceScope(resource: string, scope: string): void;
      save(): Promise<string>;
    };
    readonly Client: { find(id: string): Promise<unknown> };
    readonly RefreshToken: new (init: Record<string, unknown>) => { save(): Promise<string> };
  }
}

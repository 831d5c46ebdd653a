import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** Starts a server on 127.0.0.1, port 0, and resolves with its base URL (`http://127.0.0.1:PORT`). */
export type Listen = (server: Server, scheme?: 'http' | 'https') => Promise<string>;

/**
 * Local servers for one test file (feeds, webhooks, silent or broken peers): `listen` starts one on a
 * loopback port; after each test every server started is closed, its open connections first (a
 * server that holds a request open would otherwise keep `close` waiting). Call at the top level of
 * the file: it registers the hook.
 */
export function localServers(): Listen {
  const servers: Server[] = [];
  afterEach(async () => {
    const open = servers.splice(0);
    for (const server of open) server.closeAllConnections();
    await Promise.all(open.map((server) => new Promise((done) => server.close(done))));
  });
  return (server, scheme = 'http') => {
    servers.push(server);
    return new Promise((done) =>
      server.listen(0, '127.0.0.1', () =>
        done(`${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`),
      ),
    );
  };
}

import net from 'node:net';

/**
 * A loopback TCP proxy to a real server, which a test can cut: `stop()` closes the
 * listener and resets every open connection, as a database going away does; `cut()` only resets them.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    /** Resets every open connection and keeps listening: clients reconnect through it. */
    cut() {
      for (const socket of sockets) socket.resetAndDestroy();
      sockets.clear();
    },
    async stop() {
      for (const socket of sockets) socket.resetAndDestroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

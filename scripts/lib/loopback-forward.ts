// The web process (scripts/serve.ts) listens on one address. npm start's dashboard listens on 127.0.0.1, and its
// public URL is http://localhost:…, which a browser or Node may resolve to ::1 first: this forwards [::1]:port to
// 127.0.0.1:port, so both loopback addresses answer and nothing else can reach the dashboard.
import { createServer, connect, type Server } from "node:net";

/** Listens on [::1]:port and pipes each connection to 127.0.0.1:port. Null when the host has no IPv6 loopback. */
export async function forwardIpv6Loopback(port: number): Promise<Server | null> {
  const server = createServer((client) => {
    const upstream = connect({ host: "127.0.0.1", port });
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close);
    upstream.on("error", close);
  });
  return new Promise((resolve) => {
    server.once("error", () => resolve(null)); // EADDRNOTAVAIL (IPv6 off) or EADDRINUSE: 127.0.0.1 still serves
    server.listen({ host: "::1", port, ipv6Only: true }, () => resolve(server));
  });
}

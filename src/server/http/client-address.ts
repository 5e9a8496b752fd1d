// Who the client is, for the sign-in throttle and the audit log. Next's Request carries no socket, so the server
// process stamps the TCP peer's address on every request under PEER_ADDRESS_HEADER, overwriting whatever a client sent
// under that name (installPeerAddressHeader, from instrumentation.ts). X-Forwarded-For is read only when proxies are
// declared (PACKRAT_TRUSTED_PROXY_HOPS): without one, a client could write any address there.
import * as http from "node:http";

export const PEER_ADDRESS_HEADER = "x-packrat-peer-address";

/** The client's address: the Nth X-Forwarded-For entry from the right behind N trusted proxies, else the TCP peer. */
export function clientAddress(headers: Headers, trustedProxyHops: number): string {
  if (trustedProxyHops > 0) {
    const chain = (headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean);
    const entry = chain[chain.length - trustedProxyHops];
    if (entry) return entry;
  }
  return headers.get(PEER_ADDRESS_HEADER)?.trim() || "unknown";
}

const holder = globalThis as unknown as { packratPeerAddressInstalled?: boolean };

/** Every http.Server of this process: a request's PEER_ADDRESS_HEADER is its socket's remote address, nothing else. */
export function installPeerAddressHeader(httpModule: typeof http = http): void {
  if (holder.packratPeerAddressInstalled) return;
  holder.packratPeerAddressInstalled = true;
  const prototype = httpModule.Server.prototype as unknown as {
    emit: (event: string | symbol, ...args: unknown[]) => boolean;
  };
  const emit = prototype.emit;
  prototype.emit = function emitWithPeerAddress(this: unknown, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const request = args[0] as http.IncomingMessage;
      request.headers[PEER_ADDRESS_HEADER] = request.socket?.remoteAddress ?? "unknown";
    }
    return emit.call(this, event, ...args);
  };
}

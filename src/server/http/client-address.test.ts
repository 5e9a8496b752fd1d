// The client's address: the TCP peer unless proxies are declared; the peer header cannot be forged by a client.
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { clientAddress, installPeerAddressHeader, PEER_ADDRESS_HEADER } from "./client-address";

const headers = (init: Record<string, string>) => new Headers(init);

describe("clientAddress", () => {
  it("without trusted proxies: the peer, whatever X-Forwarded-For says", () => {
    expect(clientAddress(headers({ "x-forwarded-for": "203.0.113.9", [PEER_ADDRESS_HEADER]: "10.1.2.3" }), 0)).toBe(
      "10.1.2.3",
    );
    expect(clientAddress(headers({ "x-forwarded-for": "203.0.113.9" }), 0)).toBe("unknown");
  });

  it("behind N proxies: the Nth entry from the right (what the outermost trusted proxy saw), else the peer", () => {
    const h = headers({ "x-forwarded-for": "198.51.100.7, 203.0.113.9, 10.0.0.5", [PEER_ADDRESS_HEADER]: "10.0.0.6" });
    expect(clientAddress(h, 1)).toBe("10.0.0.5");
    expect(clientAddress(h, 2)).toBe("203.0.113.9");
    // Fewer entries than proxies: the request did not come through them all.
    expect(clientAddress(h, 4)).toBe("10.0.0.6");
    expect(clientAddress(headers({ [PEER_ADDRESS_HEADER]: "10.0.0.6" }), 1)).toBe("10.0.0.6");
  });
});

describe("installPeerAddressHeader", () => {
  it("stamps every request of an http.Server with its socket's address, over a header the client sent", async () => {
    installPeerAddressHeader(http);
    const server = http.createServer((req, res) => res.end(String(req.headers[PEER_ADDRESS_HEADER])));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/`, { headers: { [PEER_ADDRESS_HEADER]: "203.0.113.66" } });
      expect(await response.text()).toBe("127.0.0.1");
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});

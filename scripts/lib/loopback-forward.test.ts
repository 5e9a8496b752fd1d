// Real sockets: a server on 127.0.0.1 answers through [::1] as well, once forwarded.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { forwardIpv6Loopback } from "./loopback-forward";

const server = createServer((req, res) => res.end(`hello ${req.url}`));
let port = 0;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it("[::1]:port reaches the 127.0.0.1 server (or the host has no IPv6 loopback and nothing is forwarded)", async () => {
  const forward = await forwardIpv6Loopback(port);
  if (!forward) {
    // No IPv6 loopback here: then [::1] cannot be reached at all, which is what the null means.
    await expect(fetch(`http://[::1]:${port}/x`)).rejects.toThrow();
    return;
  }
  try {
    expect(await (await fetch(`http://[::1]:${port}/x`)).text()).toBe("hello /x");
    expect(await (await fetch(`http://127.0.0.1:${port}/y`)).text()).toBe("hello /y");
  } finally {
    await new Promise<void>((resolve) => forward.close(() => resolve()));
  }
});

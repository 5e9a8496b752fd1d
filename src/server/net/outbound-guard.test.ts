// The outbound guard against real sockets on loopback: a refused address is never connected to, a name that
// changes its answer between the check and the connection (DNS rebinding) is caught at connect time, redirects
// are returned, not followed, and an allow-list entry opens exactly what it names.
import { lookup as realLookup } from "node:dns";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyAddress, createOutboundGuard, OutboundRefusedError, OutboundRequestError } from "./outbound-guard";

let server: Server;
let port = 0;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? "");
    if (req.url === "/redirect") res.writeHead(302, { location: `http://127.0.0.1:${port}/inside` }).end();
    else res.writeHead(200, { "content-type": "text/plain" }).end("hello");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A resolver that answers `name` with the given addresses in turn (the last one repeats), others normally. */
function scriptedLookup(name: string, answers: string[]): typeof realLookup {
  let call = 0;
  return ((
    host: string,
    options: object,
    callback: (e: Error | null, a: Array<{ address: string; family: number }>) => void,
  ) => {
    if (host !== name)
      return (realLookup as unknown as (h: string, o: object, c: unknown) => void)(host, options, callback);
    const address = answers[Math.min(call++, answers.length - 1)]!;
    queueMicrotask(() => callback(null, [{ address, family: address.includes(":") ? 6 : 4 }]));
  }) as unknown as typeof realLookup;
}

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.1.2", "loopback"],
    ["::1", "loopback"],
    ["10.0.0.7", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fd12::1", "private"],
    ["169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["100.64.0.1", "shared"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    // IPv4 hidden in IPv6: mapped (both spellings) and NAT64.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "metadata"],
    ["64:ff9b::10.0.0.1", "private"],
  ])("%s is %s", (ip, why) => {
    expect(classifyAddress(ip)).toBe(why);
  });

  it.each(["8.8.8.8", "93.184.216.34", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "%s is public",
    (ip) => {
      expect(classifyAddress(ip)).toBeNull();
    },
  );
});

describe("guard.fetch", () => {
  it("refuses a loopback literal, a private literal and localhost without sending a byte", async () => {
    const guard = createOutboundGuard();
    const before = hits.length;
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://localhost:${port}/`,
      "http://169.254.169.254/latest/meta-data/",
    ]) {
      const error = await guard.fetch(url, { method: "POST", body: "{}" }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, url).toBeInstanceOf(OutboundRefusedError);
    }
    expect(hits.length).toBe(before);
  });

  it("catches DNS rebinding: the name passed the check as a public address, and the connection's own lookup says 127.0.0.1", async () => {
    const guard = createOutboundGuard({ lookup: scriptedLookup("rebind.test", ["93.184.216.34", "127.0.0.1"]) });
    const before = hits.length;
    await expect(guard.check(`http://rebind.test:${port}/`)).resolves.toBeUndefined();
    const error = await guard.fetch(`http://rebind.test:${port}/`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OutboundRefusedError);
    expect((error as OutboundRefusedError).address).toBe("127.0.0.1");
    expect(hits.length).toBe(before);
  });

  it("an allow-list entry opens what it names (address, network or host name), and only that", async () => {
    for (const allow of [["127.0.0.1"], ["127.0.0.0/8"], ["allowed.test"]]) {
      const guard = createOutboundGuard({ allow, lookup: scriptedLookup("allowed.test", ["127.0.0.1"]) });
      const host = allow[0] === "allowed.test" ? "allowed.test" : "127.0.0.1";
      const response = await guard.fetch(`http://${host}:${port}/ok`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe("hello");
    }
    const narrow = createOutboundGuard({ allow: ["10.0.0.0/8"] });
    await expect(narrow.fetch(`http://127.0.0.1:${port}/`)).rejects.toBeInstanceOf(OutboundRefusedError);
  });

  it("returns a redirect instead of following it", async () => {
    const guard = createOutboundGuard({ allow: ["127.0.0.1"] });
    const before = hits.length;
    const response = await guard.fetch(`http://127.0.0.1:${port}/redirect`);
    expect(response.status).toBe(302);
    expect(hits.slice(before)).toEqual(["/redirect"]);
  });

  it("refuses other schemes, and names a refused connection's code", async () => {
    const guard = createOutboundGuard({ allow: ["127.0.0.1"] });
    await expect(guard.fetch("file:///etc/passwd")).rejects.toBeInstanceOf(OutboundRefusedError);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await guard.fetch(`http://127.0.0.1:${closedPort}/`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OutboundRequestError);
    expect((error as OutboundRequestError).code).toBe("ECONNREFUSED");
  });
});

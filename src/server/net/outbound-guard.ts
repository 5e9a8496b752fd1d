// The one door for requests the control plane makes to addresses a user typed (alert webhooks, model import by
// URL). A user with the right to set a URL must not be able to reach what only the server can reach: loopback,
// link-local (cloud metadata at 169.254.169.254 / fd00:ec2::254), private networks, the database, an agent port.
//
// The address is checked where the socket is opened: the connection's own DNS lookup returns only addresses
// that pass, and the socket connects to exactly the address that was checked, so a name that resolves to a
// public address when validated and to 127.0.0.1 a moment later (DNS rebinding) gets nowhere. Redirects are
// never followed (a public host cannot bounce the request inward). An operator may name addresses, networks or
// host names that are allowed anyway (`allow`), e.g. an internal alert receiver.
//
// Interface:
//   createOutboundGuard({ allow })           -> OutboundGuard
//   guard.fetch(url, init) -> Promise<Response>   fetch-like: http/https only, no redirects (3xx is returned as is),
//                                               throws OutboundRefusedError before any byte is sent to a refused
//                                               address; other failures throw OutboundRequestError (code: ECONNREFUSED…)
//   guard.check(url) -> Promise<void>           resolves and checks now (for a clear 400 when a URL is saved);
//                                               advisory only: guard.fetch checks again at connect time
//   classifyAddress(ip) -> AddressClass | null  why an address is refused (null: public)
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";

export type AddressClass =
  "unspecified" | "loopback" | "private" | "link-local" | "metadata" | "shared" | "multicast" | "reserved";

/** An address (or name) the guard will not connect to. Its message names the host and the reason, nothing from a response. */
export class OutboundRefusedError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: AddressClass | "scheme",
  ) {
    super(
      reason === "scheme"
        ? `only http:// and https:// URLs may be fetched (got ${host})`
        : `refused to connect to ${host}${address && address !== host ? ` (${address})` : ""}: a ${reason} address; allow it with PACKRAT_OUTBOUND_ALLOW`,
    );
    this.name = "OutboundRefusedError";
  }
}

/** The request failed on the way (refused connection, unknown host, timeout). `code` is the system's (ECONNREFUSED, ENOTFOUND, ETIMEDOUT…). */
export class OutboundRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "OutboundRequestError";
  }
}

const METADATA = new BlockList();
METADATA.addAddress("169.254.169.254", "ipv4");
METADATA.addAddress("169.254.170.2", "ipv4"); // ECS task metadata
METADATA.addAddress("100.100.100.200", "ipv4"); // Alibaba Cloud
METADATA.addAddress("fd00:ec2::254", "ipv6");

const RANGES: Array<[AddressClass, string, number, "ipv4" | "ipv6"]> = [
  ["unspecified", "0.0.0.0", 8, "ipv4"],
  ["loopback", "127.0.0.0", 8, "ipv4"],
  ["private", "10.0.0.0", 8, "ipv4"],
  ["private", "172.16.0.0", 12, "ipv4"],
  ["private", "192.168.0.0", 16, "ipv4"],
  ["shared", "100.64.0.0", 10, "ipv4"],
  ["link-local", "169.254.0.0", 16, "ipv4"],
  ["reserved", "192.0.0.0", 24, "ipv4"],
  ["reserved", "198.18.0.0", 15, "ipv4"],
  ["multicast", "224.0.0.0", 4, "ipv4"],
  ["reserved", "240.0.0.0", 4, "ipv4"],
  ["unspecified", "::", 128, "ipv6"],
  ["loopback", "::1", 128, "ipv6"],
  ["private", "fc00::", 7, "ipv6"],
  ["link-local", "fe80::", 10, "ipv6"],
  ["multicast", "ff00::", 8, "ipv6"],
];
const BLOCKS = RANGES.map(([why, net, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return { why, list, family };
});

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(ip: string): string | null {
  const lower = ip.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const hi = parseInt(hex[1]!, 16),
    lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Why `ip` may not be reached without an allow-list entry, or null for a public address. */
export function classifyAddress(ip: string): AddressClass | null {
  const family = isIP(ip);
  if (family === 0) return "reserved";
  if (family === 6) {
    const v4 = embeddedIpv4(ip);
    if (v4) return classifyAddress(v4);
  }
  const type = family === 4 ? "ipv4" : "ipv6";
  if (METADATA.check(ip, type)) return "metadata";
  for (const block of BLOCKS) if (block.family === type && block.list.check(ip, type)) return block.why;
  return null;
}

export interface OutboundGuardOptions {
  /** Addresses (10.0.0.5), networks (10.1.0.0/16, fd00::/8) or host names (alerts.internal) allowed although private. */
  allow?: readonly string[];
  /** The resolver (tests answer a name with what they like, to play DNS rebinding). */
  lookup?: typeof dnsLookup;
}

export interface OutboundFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

export interface OutboundGuard {
  fetch(url: string | URL, init?: OutboundFetchInit): Promise<Response>;
  check(url: string | URL): Promise<void>;
  isAllowed(ip: string): boolean;
}

export function createOutboundGuard(options: OutboundGuardOptions = {}): OutboundGuard {
  const allowedAddresses = new BlockList();
  const allowedHosts = new Set<string>();
  for (const raw of options.allow ?? []) {
    const entry = raw.trim();
    if (!entry) continue;
    const [net, prefix] = entry.split("/");
    const family = isIP(net!);
    if (family && prefix !== undefined)
      allowedAddresses.addSubnet(net!, Number(prefix), family === 4 ? "ipv4" : "ipv6");
    else if (family) allowedAddresses.addAddress(net!, family === 4 ? "ipv4" : "ipv6");
    else allowedHosts.add(entry.toLowerCase());
  }
  const resolve = options.lookup ?? dnsLookup;

  const isAllowed = (ip: string): boolean => {
    const family = isIP(ip);
    return family !== 0 && allowedAddresses.check(ip, family === 4 ? "ipv4" : "ipv6");
  };
  const verdict = (host: string, ip: string): OutboundRefusedError | null => {
    if (allowedHosts.has(host.toLowerCase()) || isAllowed(ip)) return null;
    const why = classifyAddress(ip);
    return why ? new OutboundRefusedError(host, ip, why) : null;
  };

  // The lookup the socket itself uses: every address it would try is checked, so none is reached unchecked.
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as unknown as LookupAddress[];
      const refused = list.map((a) => verdict(hostname, a.address));
      const passing = list.filter((_, i) => !refused[i]);
      if (passing.length === 0)
        return callback(
          refused.find(Boolean) ?? new OutboundRequestError("ENOTFOUND", `${hostname} has no address`),
          "",
          0,
        );
      if (lookupOptions.all) return callback(null, passing);
      return callback(null, passing[0]!.address, passing[0]!.family);
    });
  };

  const parse = (input: string | URL): URL => {
    const url = new URL(input);
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new OutboundRefusedError(url.protocol, "", "scheme");
    return url;
  };
  const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

  async function check(input: string | URL): Promise<void> {
    const url = parse(input);
    const host = bareHost(url);
    if (isIP(host)) {
      const refused = verdict(host, host);
      if (refused) throw refused;
      return;
    }
    const addresses = await new Promise<LookupAddress[]>((ok, fail) =>
      resolve(host, { all: true }, (e, a) => (e ? fail(e) : ok(a as unknown as LookupAddress[]))),
    );
    for (const a of addresses) {
      const refused = verdict(host, a.address);
      if (refused) throw refused;
    }
  }

  function guardedFetch(input: string | URL, init: OutboundFetchInit = {}): Promise<Response> {
    let url: URL;
    try {
      url = parse(input);
    } catch (error) {
      return Promise.reject(error);
    }
    const host = bareHost(url);
    // A literal address skips DNS (and so the lookup above): check it here.
    if (isIP(host)) {
      const refused = verdict(host, host);
      if (refused) return Promise.reject(refused);
    }
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<Response>((resolvePromise, reject) => {
      const request = send(
        url,
        {
          method: init.method ?? "GET",
          headers: init.headers,
          lookup: guardedLookup,
          agent: false,
          signal: init.signal,
        },
        (response: IncomingMessage) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (Array.isArray(value)) for (const v of value) headers.append(name, v);
            else if (value !== undefined) headers.set(name, value);
          }
          const status = response.statusCode ?? 502;
          const noBody = status === 204 || status === 304 || (init.method ?? "GET") === "HEAD";
          if (noBody) response.resume();
          resolvePromise(
            new Response(noBody ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), {
              status,
              statusText: response.statusMessage,
              headers,
            }),
          );
        },
      );
      request.on("error", (error: Error & { code?: string }) => {
        if (error instanceof OutboundRefusedError) return reject(error);
        if (error.name === "AbortError") return reject(error);
        reject(new OutboundRequestError(error.code ?? "EREQUEST", error.message));
      });
      request.end(init.body);
    });
  }

  return { fetch: guardedFetch, check, isAllowed };
}

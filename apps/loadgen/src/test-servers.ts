// Test targets with known behaviour, speaking just enough OIP for the client: a server that serves one request at
// a time with a fixed service time (capacity exactly 1/service), one that sleeps per request, and misbehaving ones.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface TestServer {
  url: string;
  /** Requests received, and the most that were ever in progress at once. */
  stats: { received: number; maxConcurrent: number };
  close: () => Promise<void>;
}

const RESPONSE = Buffer.from(
  JSON.stringify({
    model_name: "test",
    model_version: "1",
    outputs: [{ name: "y", datatype: "FP32", shape: [1, 1], data: [0] }],
  }),
);
const METADATA = Buffer.from(
  JSON.stringify({
    name: "test",
    versions: ["1"],
    platform: "test",
    inputs: [{ name: "x", datatype: "FP32", shape: [-1, 4] }],
    outputs: [{ name: "y", datatype: "FP32", shape: [-1, 1] }],
  }),
);

function answer(response: ServerResponse, status = 200, body = RESPONSE): void {
  response.writeHead(status, { "content-type": "application/json", "content-length": body.length });
  response.end(body);
}

/** Starts a server on a free loopback port; `infer` handles POST …/infer, metadata is answered for any GET. */
export async function startTestServer(
  infer: (request: IncomingMessage, response: ServerResponse, done: () => void) => void,
): Promise<TestServer> {
  const stats = { received: 0, maxConcurrent: 0 };
  let current = 0;
  const server: Server = createServer((request, response) => {
    if (request.method === "GET") return answer(response, 200, METADATA);
    stats.received++;
    current++;
    stats.maxConcurrent = Math.max(stats.maxConcurrent, current);
    let finished = false;
    const done = () => {
      if (!finished) {
        finished = true;
        current--;
      }
    };
    response.on("close", done);
    request.resume(); // the body is not needed; drain it
    request.on("end", () => infer(request, response, done));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One request at a time, in arrival order, each taking exactly `serviceMs` of (virtual) service: request i ends at
 * max(arrival_i, end_{i−1}) + serviceMs. Ends are computed, not slept in sequence, so timer lateness never lowers the
 * capacity: it is exactly 1000/serviceMs requests/s.
 */
export function startFixedCapacityServer(serviceMs: number): Promise<TestServer> {
  let freeAt = 0;
  return startTestServer((_request, response, done) => {
    const now = performance.now();
    freeAt = Math.max(now, freeAt) + serviceMs;
    const finishAt = freeAt;
    // libuv's timers count from the loop's cached clock, which lags performance.now() on a busy loop, so a timer
    // can fire early: re-arm until the service time has really passed (the capacity is a promise).
    const finish = () => {
      const left = finishAt - performance.now();
      if (left > 0) setTimeout(finish, left);
      else {
        answer(response);
        done();
      }
    };
    setTimeout(finish, finishAt - now);
  });
}

/** Sleeps `sleepMs` per request; all at once (parallel) or one after another (serial: the fixed-capacity server). */
export function startSleepingServer(sleepMs: number, serial: boolean): Promise<TestServer> {
  if (serial) return startFixedCapacityServer(sleepMs);
  return startTestServer((_request, response, done) =>
    setTimeout(() => {
      answer(response);
      done();
    }, sleepMs),
  );
}

// The supervisor's waiting room on real loopback sockets: what waits is untouched (its bytes are still there for
// whoever takes it), and what does not fit or waits too long is answered 503 + Retry-After, never just dropped.
import { connect, createServer, Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HeldConnections } from "./held-connections";

const open: Array<Server | Socket> = [];
afterEach(() => {
  for (const s of open.splice(0)) {
    if (s instanceof Server) s.close();
    else s.destroy();
  }
});

/** A paused-on-connect server: each accepted socket goes to `onSocket`. */
async function pausedServer(onSocket: (socket: Socket) => void): Promise<number> {
  const server = createServer({ pauseOnConnect: true }, onSocket);
  open.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return (server.address() as { port: number }).port;
}

/** Connects, sends `request`, and resolves with everything the server sent until it closed. */
function client(port: number, request: string): { answer: Promise<string> } {
  const socket = connect(port, "127.0.0.1");
  open.push(socket);
  socket.write(request);
  let text = "";
  socket.on("data", (d) => {
    text += d;
  });
  return {
    answer: new Promise((done) => {
      socket.on("close", () => done(text));
      socket.on("error", () => {});
    }),
  };
}

/** Resolves once the server has accepted `count` connections. */
function arrivals(count: number, accepted: Socket[]): Promise<void> {
  return new Promise((done) => {
    const check = setInterval(() => {
      if (accepted.length >= count) {
        clearInterval(check);
        done();
      }
    }, 5);
  });
}

const request = (k: number) => `GET /v2/health/live?k=${k} HTTP/1.1\r\nhost: agent\r\n\r\n`;

/** A HeldConnections behind a paused server, and `count` clients whose connections it holds (all arrived). */
async function holdingClients(options: { max?: number; timeoutMs: number; reason?: string }, count: number) {
  const reason = options.reason ?? "restarting";
  const held = new HeldConnections({ max: options.max ?? 10, timeoutMs: options.timeoutMs, reason: () => reason });
  const accepted: Socket[] = [];
  const port = await pausedServer((s) => {
    accepted.push(s);
    held.hold(s);
  });
  const clients = Array.from({ length: count }, (_, k) => client(port, request(k)));
  await arrivals(count, accepted);
  return { held, accepted, clients, port };
}

describe("HeldConnections", () => {
  it("takeOne gives the oldest waiting socket, skips one its client closed, and stops its timer", async () => {
    const { held, accepted, clients } = await holdingClients({ timeoutMs: 300 }, 3);
    accepted[0]!.destroy(); // as if its client had gone
    expect(held.takeOne()).toBe(accepted[1]);
    expect(held.size).toBe(1);
    // Past the timeout the one still waiting is answered 503; the taken one is not (its timer was stopped).
    expect(await clients[2]!.answer).toContain("503");
    expect(held.shed).toBe(1);
    expect(held.takeOne()).toBeUndefined();
    accepted[1]!.end("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    expect(await clients[1]!.answer).toContain("200 OK");
  });

  it("holds sockets unread, in arrival order; takeAll hands them over with their bytes intact", async () => {
    const { held, accepted, clients } = await holdingClients({ timeoutMs: 60_000 }, 3);
    expect(held.size).toBe(3);
    const taken = held.takeAll();
    expect(taken).toEqual(accepted);
    expect(held.size).toBe(0);
    // Each taken socket still has its own request to read: answer it, the client gets that answer.
    for (const socket of taken) {
      socket.once("data", (d) => {
        const k = /k=(\d)/.exec(String(d))![1];
        socket.end(`HTTP/1.1 200 OK\r\ncontent-length: 1\r\nconnection: close\r\n\r\n${k}`);
      });
      socket.resume();
    }
    const answers = await Promise.all(clients.map((c) => c.answer));
    expect(answers.map((a) => a.split("\r\n\r\n")[1])).toEqual(["0", "1", "2"]);
    expect({ held: held.held, shed: held.shed }).toEqual({ held: 3, shed: 0 });
  });

  it("beyond max waiting, a connection is answered 503 with Retry-After and a JSON error, and closed", async () => {
    const { held, port } = await holdingClients(
      { max: 2, timeoutMs: 60_000, reason: "the serving process is restarting" },
      2,
    );
    const third = client(port, request(2));
    const answer = await third.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(answer).toMatch(/\r\nretry-after: 1\r\n/);
    expect(JSON.parse(answer.split("\r\n\r\n")[1]!)).toEqual({ error: "the serving process is restarting" });
    expect({ size: held.size, held: held.held, shed: held.shed }).toEqual({ size: 2, held: 2, shed: 1 });
  });

  it("a connection that waited timeoutMs is answered 503 and no longer held", async () => {
    const held = new HeldConnections({ max: 10, timeoutMs: 1, reason: () => "restarting" });
    const port = await pausedServer((s) => held.hold(s));
    const answer = await client(port, request(0)).answer;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(held.takeAll()).toEqual([]);
    expect({ held: held.held, shed: held.shed }).toEqual({ held: 1, shed: 1 });
  });

  it("a socket held again at the front goes first and is counted once", async () => {
    const held = new HeldConnections({ max: 10, timeoutMs: 60_000, reason: () => "restarting" });
    const accepted: Socket[] = [];
    const port = await pausedServer((s) => accepted.push(s));
    client(port, request(0));
    client(port, request(1));
    await arrivals(2, accepted);
    held.hold(accepted[0]!);
    held.hold(accepted[1]!);
    const [first, second] = held.takeAll();
    held.hold(first!);
    held.hold(second!, true);
    expect(held.takeAll()).toEqual([second, first]);
    expect(held.held).toBe(2);
  });

  it("shedAll answers every waiting connection", async () => {
    const { held, clients } = await holdingClients({ timeoutMs: 60_000, reason: "the agent is shutting down" }, 2);
    held.shedAll();
    for (const answer of await Promise.all(clients.map((c) => c.answer)))
      expect(answer).toMatch(/^HTTP\/1\.1 503 [^]*shutting down/);
    expect(held.size).toBe(0);
  });
});

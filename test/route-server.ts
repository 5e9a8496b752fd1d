// Serves Next.js route handlers (plain `(Request) => Response` functions) over real HTTP without a Next build, so
// integration tests drive the agent API exactly as an agent does. Only for tests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;
export interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
  params?: string[];
}

export async function startRouteServer(
  routes: Route[],
  port = 0,
  /** Served first, as scripts/serve.ts serves it: the agent front takes /api/agent/v1/* (answers true). */
  front?: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    if (front?.(req, res)) return;
    const url = `http://127.0.0.1${req.url}`;
    const path = new URL(url).pathname;
    const route = routes.find((r) => r.method === req.method && r.pattern.test(path));
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const match = route.pattern.exec(path)!;
    const params = Object.fromEntries((route.params ?? []).map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(url, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      signal: abort.signal,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
    } as RequestInit);
    try {
      const response = await route.handler(request, { params: Promise.resolve(params) });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body)
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "INTERNAL", message: (error as Error).message } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

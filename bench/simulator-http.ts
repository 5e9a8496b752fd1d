// The simulated agents' HTTP client: node:http over one keep-alive agent. Thousands of simulated agents share the
// benchmark's CPUs with the control plane and PostgreSQL, and fetch costs several times more CPU per request than a
// plain request; what the simulator spends is taken from what it measures.
import { Agent, request } from "node:http";

const keepAlive = new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 4096 });

/** A response read whole: what the simulator looks at of a fetch Response. */
export interface SimulatorResponse {
  status: number;
  ok: boolean;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export function simulatorRequest(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
): Promise<SimulatorResponse> {
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : Buffer.from(init.body);
    const req = request(
      url,
      {
        method: init.method,
        agent: keepAlive,
        signal: init.signal,
        headers: body ? { ...init.headers, "content-length": String(body.length) } : init.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          const status = res.statusCode ?? 0;
          resolve({
            status,
            ok: status >= 200 && status < 300,
            text: async () => bytes.toString("utf8"),
            json: async () => JSON.parse(bytes.toString("utf8")) as unknown,
            arrayBuffer: async () =>
              bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

// Safe defaults, counted: the outbound guard against the addresses an SRE could point the alert webhook at, a
// tRPC batch built to fan out into a thousand health checks, request bodies an anonymous caller streams at the
// control plane, and 16 parallel 64 MiB JSON bodies at one agent (its serving process's peak RSS).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { lookup as realLookup } from "node:dns";
import { startAgent } from "../apps/agent/src/test-agent-process";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { POST as register } from "../src/app/api/agent/v1/register/route";
import { handleTrpcRequest } from "../src/server/api/http-handler";
import { handleAuthRequest } from "../src/server/auth/auth-handler";
import { resetEnvForTests } from "../src/server/env";
import { createOutboundGuard, OutboundRefusedError } from "../src/server/net/outbound-guard";
import { healthChecksRun } from "../src/server/services/system-service";
import { processMemory, servingSnapshot } from "../src/testing/fuzz/agent-probe";
import type { BenchFigure, BenchTable } from "./types";
import { testEnv } from "../test/test-env";

const MiB = 1024 ** 2;

async function webhookTargets(): Promise<{ figures: BenchFigure[]; tables: BenchTable[] }> {
  let hits = 0;
  const listener = createServer((_req, res) => {
    hits++;
    res.end();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as AddressInfo).port;
  // A name that resolves to a public address when checked and to loopback when connected (DNS rebinding).
  let calls = 0;
  const lookup = ((
    host: string,
    options: object,
    callback: (e: Error | null, a: Array<{ address: string; family: number }>) => void,
  ) => {
    if (host !== "rebind.bench")
      return (realLookup as unknown as (h: string, o: object, c: unknown) => void)(host, options, callback);
    const address = calls++ === 0 ? "93.184.216.34" : "127.0.0.1";
    queueMicrotask(() => callback(null, [{ address, family: 4 }]));
  }) as unknown as typeof realLookup;
  const guard = createOutboundGuard({ lookup });
  const targets = [
    `http://127.0.0.1:${port}/`,
    `http://localhost:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    "http://127.0.0.1:5432/",
    "http://127.0.0.1:8000/v2/models",
    "http://0.0.0.0:3000/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://169.254.170.2/v2/credentials",
    "http://100.100.100.200/",
    "http://10.0.0.5/hook",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://[fd12::1]/",
    "http://[fe80::1]/",
    "http://[64:ff9b::a00:5]/",
    "file:///etc/passwd",
  ];
  const rows: Array<[string, string]> = [];
  let refused = 0;
  for (const url of targets) {
    const outcome = await guard.fetch(url, { method: "POST", body: "{}", signal: AbortSignal.timeout(2_000) }).then(
      (r) => {
        void r.body?.cancel();
        return `answered ${r.status}`;
      },
      (e: Error) =>
        e instanceof OutboundRefusedError ? `refused (${e.reason})` : `failed (${e.message.slice(0, 40)})`,
    );
    if (outcome.startsWith("refused")) refused++;
    rows.push([url, outcome]);
  }
  await guard.check(`http://rebind.bench:${port}/`);
  const rebound = await guard.fetch(`http://rebind.bench:${port}/`).then(
    () => "answered",
    (e: Error) => (e instanceof OutboundRefusedError ? `refused (${e.reason})` : "failed"),
  );
  if (rebound.startsWith("refused")) refused++;
  rows.push([`http://rebind.bench:${port}/ (public when checked, 127.0.0.1 at connect)`, rebound]);
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  return {
    figures: [
      {
        label: "security: webhook targets tried (loopback, metadata, private, rebinding)",
        value: targets.length + 1,
        unit: "targets",
      },
      { label: "security: webhook targets refused", value: refused, unit: "targets" },
      { label: "security: requests that reached the loopback listener", value: hits, unit: "requests" },
    ],
    tables: [
      {
        title: "Outbound guard: what an alert webhook could be pointed at (no allow-list)",
        columns: ["target", "outcome"],
        rows,
      },
    ],
  };
}

async function batchedHealth(): Promise<BenchFigure[]> {
  const n = 1_000;
  const url = `http://localhost:3999/api/trpc/${Array.from({ length: n }, () => "system.health").join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]))))}`;
  const before = healthChecksRun();
  const response = await handleTrpcRequest(new Request(url));
  await response.body?.cancel();
  return [
    { label: "security: health calls in one batched GET", value: n, unit: "calls" },
    { label: "security: batched health GET status (limit 20 calls)", value: response.status, unit: "HTTP" },
    { label: "security: health checks run by it", value: healthChecksRun() - before, unit: "checks" },
  ];
}

/** A chunked body of `total` bytes (no Content-Length), counting what the handler pulled. */
function chunked(total: number) {
  const piece = new Uint8Array(64 * 1024).fill(120);
  const state = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        c.enqueue(new TextEncoder().encode('{"email":"'));
      },
      pull(c) {
        if (state.pulled >= total) {
          c.close();
          return;
        }
        state.pulled += piece.byteLength;
        c.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

async function oversizedBodies(): Promise<{ figures: BenchFigure[]; tables: BenchTable[] }> {
  const origin = "http://localhost:3999";
  const cases = [
    {
      route: "POST /api/agent/v1/register (enrollment token, anonymous)",
      path: "/api/agent/v1/register",
      handler: (r: Request) => register(r),
      headers: { authorization: "Bearer prat_enroll_bench-not-a-token" },
    },
    {
      route: "POST /api/auth/sign-in/email",
      path: "/api/auth/sign-in/email",
      handler: (r: Request) => handleAuthRequest(r),
      headers: {},
    },
    {
      route: "POST /api/trpc/agentTokens.create",
      path: "/api/trpc/agentTokens.create",
      handler: (r: Request) => handleTrpcRequest(r),
      headers: {},
    },
  ];
  const rows: Array<Array<string | number>> = [];
  let refused = 0;
  for (const c of cases) {
    const { stream, state } = chunked(64 * MiB);
    const response = await c.handler(
      new Request(`${origin}${c.path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin, ...c.headers },
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    await response.body?.cancel();
    if (response.status === 413) refused++;
    rows.push([c.route, 64, response.status, Math.round((state.pulled / MiB) * 100) / 100]);
  }
  return {
    figures: [
      {
        label: "security: oversized control-plane bodies sent (64 MiB chunked)",
        value: cases.length,
        unit: "requests",
      },
      { label: "security: oversized control-plane bodies refused (413)", value: refused, unit: "requests" },
    ],
    tables: [
      {
        title: "Oversized control-plane bodies: read no further than the route's limit",
        columns: ["route", "sent (MiB)", "status", "read before refusing (MiB)"],
        rows,
      },
    ],
  };
}

async function agentBodies(): Promise<{ figures: BenchFigure[]; notes: string[] }> {
  const agent = await startAgent({
    modelBytes: buildTinyCnn({ seed: 9, producerVersion: "packrat-bench" }),
    name: "tiny-cnn",
    plan: { instances: [{ count: 1, threads: 1, batch: 64 }], batchTimeoutMs: 1 },
    env: {}, // the defaults: 64 MiB body limit, 256 MiB in flight, 4 096 queued rows
  });
  try {
    // Just under 64 MiB of valid JSON: rows of 3 072 values spelled "0.123456" (9 bytes with the comma).
    const rows = Math.floor((64 * MiB - 4096) / (3 * 32 * 32 * 9));
    const body = JSON.stringify({
      inputs: [
        {
          name: "input",
          shape: [rows, 3, 32, 32],
          datatype: "FP32",
          data: new Array(rows * 3 * 32 * 32).fill(0.123456),
        },
      ],
    });
    const { pid, restarts } = await servingSnapshot(agent.url);
    const before = processMemory(pid);
    let sampledPeak = before.rss;
    const sampler = setInterval(() => {
      try {
        sampledPeak = Math.max(sampledPeak, processMemory(pid).rss);
      } catch {
        /* gone: counted below */
      }
    }, 20);
    const statuses = await Promise.all(
      Array.from({ length: 16 }, () =>
        fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        }).then(
          async (r) => {
            await r.arrayBuffer();
            return r.status;
          },
          () => 0,
        ),
      ),
    );
    clearInterval(sampler);
    const after = await servingSnapshot(agent.url);
    const peak = processMemory(pid).peak;
    const count = (s: number) => statuses.filter((x) => x === s).length;
    return {
      figures: [
        {
          label: "security: agent, 16 parallel 64 MiB JSON bodies: body size",
          value: Math.round((body.length / MiB) * 100) / 100,
          unit: "MiB",
        },
        { label: "security: agent, 16 × 64 MiB JSON: answered 200", value: count(200), unit: "requests" },
        { label: "security: agent, 16 × 64 MiB JSON: answered 503 + Retry-After", value: count(503), unit: "requests" },
        { label: "security: agent, 16 × 64 MiB JSON: answered 413", value: count(413), unit: "requests" },
        {
          label: "security: agent, 16 × 64 MiB JSON: other answers or no answer",
          value: statuses.filter((s) => ![200, 413, 503].includes(s)).length,
          unit: "requests",
        },
        {
          label: "security: agent, 16 × 64 MiB JSON: serving-process restarts",
          value: after.restarts - restarts + (after.pid === pid ? 0 : 1),
          unit: "restarts",
        },
        {
          label: "security: agent, 16 × 64 MiB JSON: serving-process peak RSS (VmHWM; goal ≤ 1536 MiB)",
          value: Math.round(peak / MiB),
          unit: "MiB",
        },
        { label: "security: agent, 16 × 64 MiB JSON: RSS before", value: Math.round(before.rss / MiB), unit: "MiB" },
      ],
      notes: [
        `security: agent bodies: tiny-cnn, ${rows} rows per request, the agent's default limits (AGENT_MAX_BODY_BYTES 64 MiB, AGENT_MAX_BODY_BYTES_IN_FLIGHT 256 MiB with JSON charged 4×: one 64 MiB JSON body at a time). Sampled peak RSS every 20 ms: ${Math.round(sampledPeak / MiB)} MiB.`,
      ],
    };
  } finally {
    await agent.stop();
  }
}

export async function securitySection(): Promise<{ figures: BenchFigure[]; tables: BenchTable[]; notes: string[] }> {
  Object.assign(testEnv, {
    PACKRAT_PUBLIC_URL: "http://localhost:3999",
    BETTER_AUTH_SECRET: "bench-security-section-q8Vw2zLp7Rk3xTtN4b0J",
    LOG_LEVEL: "error",
  });
  resetEnvForTests();
  const webhook = await webhookTargets();
  const health = await batchedHealth();
  const bodies = await oversizedBodies();
  const agent = await agentBodies();
  return {
    figures: [...webhook.figures, ...health, ...bodies.figures, ...agent.figures],
    tables: [...webhook.tables, ...bodies.tables],
    notes: [
      "security: webhook targets through src/server/net/outbound-guard.ts (what alert deliveries use), no PACKRAT_OUTBOUND_ALLOW; failures other than refusals would be listed as such.",
      "security: batched health through the /api/trpc handler (tRPC maxBatchSize 20): refused with 400 before any procedure runs.",
      ...agent.notes,
    ],
  };
}

// The agent data plane against the minimal way to serve the same model (bench/agent-baseline-server.ts: one Node
// process calling session.run on its main thread), same model, same ORT thread count, same run, interleaved:
// tiny CNN b=1 and ResNet-50 b=1 with t=1 (the other core stays free for the client and the agent's HTTP thread),
// binary and JSON tensors, closed loop at concurrency 1 through the load generator's OIP client. Where the added
// time goes comes from the agent's Server-Timing header (formation, busy, compute = dispatch → result, including
// the hand-off to the instance thread), the baseline's (compute = session.run alone) and the client's clock.
// Beside that, the same agent over OIP gRPC (the load generator's gRPC client, raw_input_contents) against HTTP
// binary, interleaved the same way: what the protocol costs, with the same dispatcher and instance behind both.
// The baseline's thread is pinned to the agent instance's CPU, so both run session.run on the same core. On the tiny
// CNN a floor (bench/agent-floor-server.ts: raw TCP, one pinned worker thread behind an Atomics hand-off) separates
// what the host charges for a thread hand-off from what our code costs. Last, the maximum sustained rate: the agent
// at 2 instances × 1 thread against 2 baseline processes (each pinned to one CPU), closed loop at rising concurrency.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort, startAgent, type RunningAgent } from "../apps/agent/src/test-agent-process";
import { runClosedLoop } from "../apps/loadgen/src/closed-loop";
import { encodeInferRequest, type EncodedRequest } from "../apps/loadgen/src/oip-body";
import { OipClient } from "../apps/loadgen/src/oip-client";
import { OipGrpcClient } from "../apps/loadgen/src/oip-grpc-client";
import type { SendOutcome } from "../apps/loadgen/src/outcome";
import { generateInputs } from "../apps/loadgen/src/oip-inputs";
import { Prng } from "@packrat/core/stats/prng";
import { zooEntry } from "@packrat/modelzoo/registry";
import { testEnv } from "../test/test-env";
import type { Benchmark, BenchFigure, BenchTable } from "./types";

type Format = "binary" | "json";
type Target = "agent" | "baseline" | "floor";
/** The agent over each protocol (both with binary tensors). */
type Protocol = "grpc" | "http";

interface Sample {
  totalUs: number;
  ttfbUs: number;
  server: Record<string, number>;
}

interface ModelCase {
  name: "tiny-cnn" | "resnet50";
  title: string;
  shape: number[];
  rounds: number;
  perRound: Record<Format, number>;
  /** gRPC and HTTP binary requests to the agent per round. */
  grpcPerRound: number;
  /** Interleave the floor server too (binary only). */
  floor: boolean;
  /** Requests per server before switching to the other. */
  block: number;
  warmup: number;
}

const THREADS = 1;

/** The sections a run measures: AGENT_BENCH_SECTIONS, comma-separated (latency, rate); unset, both. */
function benchSections(): Set<"latency" | "rate"> {
  const raw = testEnv.AGENT_BENCH_SECTIONS?.trim();
  if (!raw) return new Set(["latency", "rate"]);
  const sections = raw.split(",").map((s) => s.trim());
  const unknown = sections.filter((s) => s !== "latency" && s !== "rate");
  if (unknown.length) throw new Error(`AGENT_BENCH_SECTIONS: unknown section ${unknown.join(", ")} (latency, rate)`);
  return new Set(sections as Array<"latency" | "rate">);
}

type RunningServer = { url: string; child: ChildProcess; stop: () => Promise<void> };

/** The baseline server; with `cpus`, its main thread (the one that calls session.run) is pinned to them. */
async function startBaseline(modelPath: string, cpus?: number[]): Promise<RunningServer> {
  const server = await startServer("bench/agent-baseline-server.ts", [modelPath, String(THREADS)]);
  if (cpus?.length)
    execFileSync("taskset", ["-p", "-c", cpus.join(","), String(server.child.pid)], { stdio: "ignore" });
  return server;
}

async function startServer(script: string, args: string[]): Promise<RunningServer> {
  const child = spawn(process.execPath, ["--import", "tsx", resolve(script), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stderr!.on("data", (d) => {
    log += d;
  });
  const port = await new Promise<number>((done, fail) => {
    child.stdout!.on("data", (d: Buffer) => {
      const match = /listening (\d+)/.exec(d.toString());
      if (match) done(Number(match[1]));
    });
    child.once("exit", (code) => fail(new Error(`${script} exited (${code}): ${log}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}

/** n requests back to back (closed loop, concurrency 1); every one must succeed. */
async function measure(
  client: { send: (body: EncodedRequest) => Promise<SendOutcome> },
  body: EncodedRequest,
  n: number,
): Promise<Sample[]> {
  const run = await runClosedLoop({
    concurrency: 1,
    send: () => client.send(body),
    durationMs: 3_600_000,
    maxRequests: n,
    warmupMs: 0,
    keepRecords: true,
  });
  const failed = run.records!.filter((r) => r.outcome !== "ok");
  if (failed.length) throw new Error(`${failed.length} of ${n} requests failed: ${run.errorSamples.join("; ")}`);
  return run.records!.map((r) => ({
    totalUs: (r.doneMs! - r.sentMs!) * 1000,
    ttfbUs: (r.headersMs! - r.sentMs!) * 1000,
    server: r.serverTiming ?? {},
  }));
}

const quantile = (sorted: number[], q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
const sortedOf = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** A statistic of one or two samples with a 95% percentile-bootstrap interval (seeded, 200 resamples). */
function bootstrap(
  a: number[],
  b: number[] | undefined,
  stat: (a: number[], b?: number[]) => number,
  seed: number,
): { value: number; low: number; high: number } {
  const random = new Prng(seed);
  const resample = (xs: number[]) => sortedOf(Array.from({ length: xs.length }, () => xs[random.int(xs.length)]!));
  const values: number[] = [];
  for (let i = 0; i < 200; i++) values.push(stat(resample(a), b && resample(b)));
  const sorted = sortedOf(values);
  return { value: stat(sortedOf(a), b && sortedOf(b)), low: quantile(sorted, 0.025), high: quantile(sorted, 0.975) };
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

function figure(
  label: string,
  est: { value: number; low: number; high: number },
  unit: string,
  samples?: number,
): BenchFigure {
  const r = unit === "×" ? round3 : round1;
  return {
    label,
    value: r(est.value),
    unit,
    spread: { kind: "ci95", low: r(est.low), high: r(est.high) },
    ...(samples ? { samples } : {}),
  };
}

async function runCase(model: ModelCase, quick: boolean, dir: string, seed: number) {
  const bytes = model.name === "tiny-cnn" ? zooEntry("tiny-cnn").build() : zooEntry("resnet50").build();
  const modelPath = join(dir, `${model.name}.onnx`);
  writeFileSync(modelPath, bytes);
  let agent: RunningAgent | undefined;
  let baseline: RunningServer | undefined;
  let floor: RunningServer | undefined;
  const clients: Array<OipClient | OipGrpcClient> = [];
  try {
    const grpcPort = await freePort();
    agent = await startAgent({
      modelBytes: bytes,
      name: model.name,
      plan: { instances: [{ count: 1, threads: THREADS, batch: 1 }], batchTimeoutMs: 0 },
      env: { AGENT_GRPC_PORT: String(grpcPort) },
    });
    const status = (await (await fetch(`${agent.url}/agent/status`)).json()) as {
      models: Array<{ affinityOk: boolean; instances: Array<{ cpus: number[] }> }>;
    };
    const instanceCpus = status.models[0]?.instances[0]?.cpus ?? [];
    baseline = await startBaseline(modelPath, instanceCpus);
    if (model.floor)
      floor = await startServer("bench/agent-floor-server.ts", [
        modelPath,
        model.shape.join(","),
        String(instanceCpus[0] ?? 0),
      ]);
    const client = (url: string) => {
      const c = new OipClient({ url: new URL(url), model: model.name, timeoutMs: 60_000, maxSockets: 1 });
      clients.push(c);
      return c;
    };
    const targets: Partial<Record<Target, OipClient>> = {
      agent: client(agent.url),
      baseline: client(baseline.url),
      ...(floor ? { floor: client(floor.url) } : {}),
    };
    const inputs = generateInputs([{ name: "input", datatype: "FP32", shape: [-1, ...model.shape.slice(1)] }], {
      batch: 1,
      seed,
    });
    const bodies: Record<Format, EncodedRequest> = {
      binary: encodeInferRequest(inputs, { binary: true }),
      json: encodeInferRequest(inputs, { binary: false }),
    };
    const samples: Record<Format, Record<Target, Sample[]>> = {
      binary: { agent: [], baseline: [], floor: [] },
      json: { agent: [], baseline: [], floor: [] },
    };
    // The floor speaks binary only.
    const targetsFor = (format: Format): Target[] =>
      format === "binary" && targets.floor ? ["agent", "baseline", "floor"] : ["agent", "baseline"];
    const perRound: Array<{ round: number; format: Format; agentP50: number; baselineP50: number }> = [];
    // gRPC on the agent's own port, the same tensor as raw_input_contents; HTTP binary is targets.agent.
    const grpcClient = new OipGrpcClient({
      url: new URL(`http://127.0.0.1:${grpcPort}`),
      model: model.name,
      timeoutMs: 60_000,
    });
    clients.push(grpcClient);
    const protocols: Record<
      Protocol,
      { client: { send: (body: EncodedRequest) => Promise<SendOutcome> }; body: EncodedRequest }
    > = {
      grpc: { client: grpcClient, body: grpcClient.encode(inputs) },
      http: { client: targets.agent!, body: bodies.binary },
    };
    const protocolSamples: Record<Protocol, Sample[]> = { grpc: [], http: [] };
    const protocolRounds: Array<{ round: number; grpcP50: number; httpP50: number }> = [];
    for (const format of ["binary", "json"] as const)
      for (const target of targetsFor(format)) await measure(targets[target]!, bodies[format], model.warmup);
    await measure(grpcClient, protocols.grpc.body, model.warmup);
    for (let round = 0; round < model.rounds; round++) {
      for (const format of ["binary", "json"] as const) {
        // Blocks of `block` requests alternate between the servers (who goes first alternates too), so both see
        // the same moment of a noisy machine: for ResNet-50 a block is one request.
        const got: Record<Target, Sample[]> = { agent: [], baseline: [], floor: [] };
        const blocks = Math.ceil(model.perRound[format] / model.block);
        const servers = targetsFor(format);
        for (let j = 0; j < blocks; j++) {
          // Who goes first rotates.
          const order = servers.map((_, k) => servers[(k + round + j) % servers.length]!);
          for (const target of order)
            got[target].push(...(await measure(targets[target]!, bodies[format], model.block)));
        }
        for (const target of servers) samples[format][target].push(...got[target]);
        const p50 = (xs: Sample[]) => quantile(sortedOf(xs.map((s) => s.totalUs)), 0.5);
        perRound.push({ round, format, agentP50: p50(got.agent), baselineP50: p50(got.baseline) });
      }
      // gRPC vs HTTP binary on the agent, in alternating blocks as above (as many requests as the binary arm).
      const pair: Record<Protocol, Sample[]> = { grpc: [], http: [] };
      const pairBlocks = Math.ceil(model.grpcPerRound / model.block);
      for (let j = 0; j < pairBlocks; j++) {
        const order: Protocol[] = (round + j) % 2 === 0 ? ["grpc", "http"] : ["http", "grpc"];
        for (const protocol of order)
          pair[protocol].push(...(await measure(protocols[protocol].client, protocols[protocol].body, model.block)));
      }
      for (const protocol of ["grpc", "http"] as const) protocolSamples[protocol].push(...pair[protocol]);
      const median = (xs: Sample[]) => quantile(sortedOf(xs.map((s) => s.totalUs)), 0.5);
      protocolRounds.push({ round, grpcP50: median(pair.grpc), httpP50: median(pair.http) });
      process.stdout.write(`  ${model.name}: round ${round + 1}/${model.rounds}\r`);
    }
    process.stdout.write("\n");
    return {
      samples,
      perRound,
      protocolSamples,
      protocolRounds,
      cpus: instanceCpus,
      affinityOk: status.models[0]?.affinityOk ?? false,
      quick,
    };
  } finally {
    for (const c of clients) c.close();
    await agent?.stop();
    await baseline?.stop();
    await floor?.stop();
  }
}

function analyse(model: ModelCase, result: Awaited<ReturnType<typeof runCase>>, seed: number) {
  const figures: BenchFigure[] = [];
  const tables: BenchTable[] = [];
  const totals = (format: Format, target: Target) => result.samples[format][target].map((s) => s.totalUs);
  const p = (q: number) => (xs: number[]) => quantile(xs, q);
  for (const format of ["binary", "json"] as const) {
    const a = totals(format, "agent");
    const b = totals(format, "baseline");
    const tag = `${model.title} b=1 t=${THREADS}, ${format}`;
    for (const [q, name] of [
      [0.5, "p50"],
      [0.99, "p99"],
    ] as const) {
      figures.push(
        figure(
          `${name} latency, baseline (session.run server), ${tag}`,
          bootstrap(b, undefined, p(q), seed + 1),
          "µs",
          b.length,
        ),
      );
      figures.push(figure(`${name} latency, agent, ${tag}`, bootstrap(a, undefined, p(q), seed + 2), "µs", a.length));
      figures.push(
        figure(
          `${name} added by the agent, ${tag}`,
          bootstrap(a, b, (x, y) => quantile(x, q) - quantile(y!, q), seed + 3),
          "µs",
        ),
      );
      figures.push(
        figure(
          `${name} agent / baseline, ${tag}`,
          bootstrap(a, b, (x, y) => quantile(x, q) / quantile(y!, q), seed + 4),
          "×",
        ),
      );
    }
    // Where the time goes, per part: medians and p99s of each part over the requests (they do not add up exactly).
    const agentSamples = result.samples[format].agent;
    const baseSamples = result.samples[format].baseline;
    const serverUs = (s: Sample, names: string[]) => names.reduce((sum, n) => sum + (s.server[n] ?? 0), 0) * 1000;
    const parts: Array<[string, ((s: Sample) => number) | undefined, ((s: Sample) => number) | undefined]> = [
      ["total (client: send → last byte)", (s) => s.totalUs, (s) => s.totalUs],
      [
        "HTTP + parse/encode (total − server-timed work)",
        (s) => s.totalUs - serverUs(s, ["compute"]),
        (s) => s.totalUs - serverUs(s, ["formation", "busy", "compute"]),
      ],
      [
        "  of which the response body after its headers (client)",
        (s) => s.totalUs - s.ttfbUs,
        (s) => s.totalUs - s.ttfbUs,
      ],
      ["dispatch: batch formation + busy wait (agent)", undefined, (s) => serverUs(s, ["formation", "busy"])],
      [
        "compute as the server times it (agent: dispatch → result incl. thread hand-off; baseline: session.run)",
        (s) => serverUs(s, ["compute"]),
        (s) => serverUs(s, ["compute"]),
      ],
    ];
    const at = (xs: Sample[], f: ((s: Sample) => number) | undefined, q: number) =>
      f ? quantile(sortedOf(xs.map(f)), q) : 0;
    const rows: Array<Array<string | number>> = parts.map(([label, base, agentPart]) => {
      const [b50, a50, b99, a99] = [
        at(baseSamples, base, 0.5),
        at(agentSamples, agentPart, 0.5),
        at(baseSamples, base, 0.99),
        at(agentSamples, agentPart, 0.99),
      ];
      return [label, round1(b50), round1(a50), round1(a50 - b50), round1(b99), round1(a99), round1(a99 - b99)];
    });
    // Measured on the agent's side: dispatch → result minus the instance's own session.run (Server-Timing run).
    const handOff = (x: Sample) => serverUs(x, ["compute"]) - serverUs(x, ["run"]);
    const run = (x: Sample) => serverUs(x, ["run"]);
    rows.push(
      [
        "  of which session.run on the instance thread (agent: Server-Timing run)",
        round1(at(baseSamples, parts[4]![1], 0.5)),
        round1(at(agentSamples, run, 0.5)),
        round1(at(agentSamples, run, 0.5) - at(baseSamples, parts[4]![1], 0.5)),
        round1(at(baseSamples, parts[4]![1], 0.99)),
        round1(at(agentSamples, run, 0.99)),
        round1(at(agentSamples, run, 0.99) - at(baseSamples, parts[4]![1], 0.99)),
      ],
      [
        "  of which the slab hand-off both ways (agent: compute − run)",
        0,
        round1(at(agentSamples, handOff, 0.5)),
        round1(at(agentSamples, handOff, 0.5)),
        0,
        round1(at(agentSamples, handOff, 0.99)),
        round1(at(agentSamples, handOff, 0.99)),
      ],
    );
    const handOff50 = at(agentSamples, parts[4]![2], 0.5) - at(baseSamples, parts[4]![1], 0.5);
    const handOff99 = at(agentSamples, parts[4]![2], 0.99) - at(baseSamples, parts[4]![1], 0.99);
    rows.push([
      "≈ transfer + thread hand-off (agent compute − baseline session.run)",
      0,
      round1(handOff50),
      round1(handOff50),
      0,
      round1(handOff99),
      round1(handOff99),
    ]);
    tables.push({
      title: `Where the time goes: ${tag} (µs)`,
      columns: ["part", "baseline p50", "agent p50", "added p50", "baseline p99", "agent p99", "added p99"],
      rows,
    });
  }
  // The floor (binary only): what the host's thread hand-off costs against what our code adds over it.
  const floorTotals = totals("binary", "floor");
  if (floorTotals.length) {
    const tag = `${model.title} b=1 t=${THREADS}, binary`;
    const a = totals("binary", "agent");
    const b = totals("binary", "baseline");
    const median = (x: number[]) => quantile(x, 0.5);
    figures.push(
      figure(
        `p50 latency, floor (raw TCP + pinned thread, Atomics), ${tag}`,
        bootstrap(floorTotals, undefined, median, seed + 10),
        "µs",
        floorTotals.length,
      ),
      figure(
        `p50 added by the agent over the floor, ${tag}`,
        bootstrap(a, floorTotals, (x, y) => median(x) - median(y!), seed + 11),
        "µs",
      ),
      figure(
        `p50 floor − baseline (the host's thread hand-off, no HTTP framework), ${tag}`,
        bootstrap(floorTotals, b, (x, y) => median(x) - median(y!), seed + 12),
        "µs",
      ),
    );
  }
  // What JSON tensors cost each server over binary ones, and the agent's cost against the baseline's.
  {
    const [aj, ab, bj, bb] = [
      totals("json", "agent"),
      totals("binary", "agent"),
      totals("json", "baseline"),
      totals("binary", "baseline"),
    ];
    const random = new Prng(seed + 13);
    const resample = (xs: number[]) => sortedOf(Array.from({ length: xs.length }, () => xs[random.int(xs.length)]!));
    const cost = (j: number[], bin: number[]) => quantile(j, 0.5) - quantile(bin, 0.5);
    const ratios: number[] = [];
    for (let i = 0; i < 200; i++) ratios.push(cost(resample(aj), resample(ab)) / cost(resample(bj), resample(bb)));
    const sorted = sortedOf(ratios);
    const sa = [aj, ab, bj, bb].map(sortedOf) as [number[], number[], number[], number[]];
    for (const [target, j, bin] of [
      ["agent", sa[0], sa[1]],
      ["baseline", sa[2], sa[3]],
    ] as const)
      figures.push(
        figure(
          `p50 JSON − binary, ${target}, ${model.title}`,
          bootstrap(j, bin, (x, y) => cost(x, y!), seed + 14),
          "µs",
        ),
      );
    figures.push(
      figure(
        `JSON cost agent / baseline (p50 JSON − binary), ${model.title}`,
        { value: cost(sa[0], sa[1]) / cost(sa[2], sa[3]), low: quantile(sorted, 0.025), high: quantile(sorted, 0.975) },
        "×",
      ),
    );
  }
  // JSON vs binary on each server.
  for (const target of ["agent", "baseline"] as const) {
    figures.push(
      figure(
        `p50 JSON / binary, ${target}, ${model.title}`,
        bootstrap(
          totals("json", target),
          totals("binary", target),
          (x, y) => quantile(x, 0.5) / quantile(y!, 0.5),
          seed + 5,
        ),
        "×",
      ),
    );
  }
  // The agent over gRPC vs over HTTP, both binary.
  const grpcTotals = result.protocolSamples.grpc.map((s) => s.totalUs);
  const httpTotals = result.protocolSamples.http.map((s) => s.totalUs);
  const protocolTag = `agent, ${model.title} b=1 t=${THREADS}`;
  for (const [q, name] of [
    [0.5, "p50"],
    [0.99, "p99"],
  ] as const) {
    figures.push(
      figure(
        `${name} latency, gRPC (raw_input_contents), ${protocolTag}`,
        bootstrap(grpcTotals, undefined, p(q), seed + 6),
        "µs",
        grpcTotals.length,
      ),
    );
    figures.push(
      figure(
        `${name} latency, HTTP binary (interleaved with gRPC), ${protocolTag}`,
        bootstrap(httpTotals, undefined, p(q), seed + 7),
        "µs",
        httpTotals.length,
      ),
    );
    figures.push(
      figure(
        `${name} gRPC − HTTP binary, ${protocolTag}`,
        bootstrap(grpcTotals, httpTotals, (x, y) => quantile(x, q) - quantile(y!, q), seed + 8),
        "µs",
      ),
    );
    figures.push(
      figure(
        `${name} gRPC / HTTP binary, ${protocolTag}`,
        bootstrap(grpcTotals, httpTotals, (x, y) => quantile(x, q) / quantile(y!, q), seed + 9),
        "×",
      ),
    );
  }
  tables.push({
    title: `${model.title}: p50 per interleaved round (µs), agent over gRPC vs HTTP binary`,
    columns: ["round", "gRPC p50", "HTTP binary p50", "ratio"],
    rows: result.protocolRounds.map((r) => [
      String(r.round + 1),
      round1(r.grpcP50),
      round1(r.httpP50),
      round3(r.grpcP50 / r.httpP50),
    ]),
  });
  tables.push({
    title: `${model.title}: p50 per interleaved round (µs), agent vs baseline`,
    columns: ["round", "format", "agent p50", "baseline p50", "ratio"],
    rows: result.perRound.map((r) => [
      String(r.round + 1),
      r.format,
      round1(r.agentP50),
      round1(r.baselineP50),
      round3(r.agentP50 / r.baselineP50),
    ]),
  });
  return { figures, tables };
}

/**
 * The maximum sustained rate on the tiny CNN: the agent with 2 instances × 1 thread (b = 1, no batch timeout)
 * against 2 baseline processes each pinned to one of the same CPUs (the client sends to them in turn), closed loop
 * at rising concurrency, the two alternating at every level and round; a server's max is its best level.
 */
async function runThroughput(quick: boolean, dir: string, seed: number) {
  const bytes = zooEntry("tiny-cnn").build();
  const modelPath = join(dir, "tiny-cnn-rate.onnx");
  writeFileSync(modelPath, bytes);
  const levels = quick ? [1, 4] : [1, 2, 4, 8];
  const rounds = quick ? 1 : 3;
  const durationMs = quick ? 1000 : 2500;
  const warmupMs = 300;
  let agent: RunningAgent | undefined;
  const baselines: RunningServer[] = [];
  const clients: OipClient[] = [];
  try {
    agent = await startAgent({
      modelBytes: bytes,
      name: "tiny-cnn",
      plan: { instances: [{ count: 2, threads: 1, batch: 1 }], batchTimeoutMs: 0 },
    });
    const status = (await (await fetch(`${agent.url}/agent/status`)).json()) as {
      models: Array<{ instances: Array<{ cpus: number[] }> }>;
    };
    const cpus = (status.models[0]?.instances ?? []).map((i) => i.cpus);
    for (const list of cpus) baselines.push(await startBaseline(modelPath, list));
    const client = (url: string) => {
      const c = new OipClient({
        url: new URL(url),
        model: "tiny-cnn",
        timeoutMs: 60_000,
        maxSockets: Math.max(...levels),
      });
      clients.push(c);
      return c;
    };
    const agentClient = client(agent.url);
    const baselineClients = baselines.map((b) => client(b.url));
    const inputs = generateInputs([{ name: "input", datatype: "FP32", shape: [-1, 3, 32, 32] }], { batch: 1, seed });
    const body = encodeInferRequest(inputs, { binary: true });
    const senders: Record<"agent" | "baseline", (i: number) => Promise<SendOutcome>> = {
      agent: () => agentClient.send(body),
      baseline: (i) => baselineClients[i % baselineClients.length]!.send(body),
    };
    const rates: Record<"agent" | "baseline", number[][]> = { agent: [], baseline: [] };
    for (let round = 0; round < rounds; round++) {
      const perLevel: Record<"agent" | "baseline", number[]> = { agent: [], baseline: [] };
      for (const [k, concurrency] of levels.entries()) {
        const order = (round + k) % 2 === 0 ? (["agent", "baseline"] as const) : (["baseline", "agent"] as const);
        for (const target of order) {
          const run = await runClosedLoop({
            concurrency,
            send: senders[target],
            durationMs: durationMs + warmupMs,
            maxRequests: 100_000_000,
            warmupMs,
          });
          const failed = run.measured.sent - run.measured.ok;
          if (failed > 0)
            throw new Error(
              `${target} at concurrency ${concurrency}: ${failed} requests failed: ${run.errorSamples.join("; ")}`,
            );
          perLevel[target].push(run.okPerS);
        }
      }
      rates.agent.push(perLevel.agent);
      rates.baseline.push(perLevel.baseline);
      process.stdout.write(`  max rate: round ${round + 1}/${rounds}\r`);
    }
    process.stdout.write("\n");
    const maxOf = (xs: number[]) => Math.max(...xs);
    const agentMax = rates.agent.map(maxOf);
    const baselineMax = rates.baseline.map(maxOf);
    const ratios = agentMax.map((a, i) => a / baselineMax[i]!);
    const median = (xs: number[]) => {
      const sorted = sortedOf(xs);
      return sorted[Math.floor((sorted.length - 1) / 2)]!;
    };
    const minMax = (xs: number[], r: (x: number) => number) => ({
      kind: "min-max" as const,
      low: r(Math.min(...xs)),
      high: r(Math.max(...xs)),
    });
    const figures: BenchFigure[] = [
      {
        label: "max sustained rate, agent (2 instances × 1 thread, b=1), tiny CNN, binary",
        value: round1(median(agentMax)),
        unit: "req/s",
        spread: minMax(agentMax, round1),
        samples: rounds,
      },
      {
        label: "max sustained rate, baseline (2 pinned processes), tiny CNN, binary",
        value: round1(median(baselineMax)),
        unit: "req/s",
        spread: minMax(baselineMax, round1),
        samples: rounds,
      },
      {
        label: "max rate agent / baseline, tiny CNN, binary",
        value: round3(median(ratios)),
        unit: "×",
        spread: minMax(ratios, round3),
        samples: rounds,
      },
    ];
    const tables: BenchTable[] = [
      {
        title: "Sustained rate by concurrency, tiny CNN b=1, binary (req/s, mean over rounds)",
        columns: ["concurrency", "agent (2 × 1 thread)", "baseline (2 processes)", "ratio"],
        rows: levels.map((c, k) => {
          const mean = (xs: number[][]) => xs.reduce((sum, r) => sum + r[k]!, 0) / xs.length;
          const [a, b] = [mean(rates.agent), mean(rates.baseline)];
          return [String(c), round1(a), round1(b), round3(a / b)];
        }),
      },
    ];
    const note = `Max rate: agent plan ⟨2 instances × 1 thread, b=1⟩, batch timeout 0, instances on CPUs ${cpus.map((c) => c.join(",")).join(" and ")}; baseline: 2 processes, each one's session.run thread pinned to one of those CPUs, the client sending to them in turn. Closed loop at concurrency ${levels.join(", ")}, ${durationMs / 1000} s each after ${warmupMs} ms of warm-up, ${rounds} round${rounds > 1 ? "s" : ""}, the two servers alternating at each level; a server's max is its best level in a round, the figure the median over rounds (spread: min–max). The client (one Node thread, this process) shares the 2 CPUs with the servers, so these rates are the host's, client included.`;
    return { figures, tables, note };
  } finally {
    for (const c of clients) c.close();
    await agent?.stop();
    for (const b of baselines) await b.stop();
  }
}

const bench: Benchmark = {
  name: "agent",
  description:
    "Agent data plane (OIP v2 over HTTP → dispatcher → pinned ORT worker thread) vs a minimal session.run HTTP server, same model and threads, interleaved; and the agent over gRPC vs HTTP binary",
  async run({ quick }) {
    const cases: ModelCase[] = [
      {
        name: "tiny-cnn",
        title: "tiny CNN",
        shape: [1, 3, 32, 32],
        rounds: quick ? 4 : 20,
        perRound: { binary: quick ? 150 : 500, json: quick ? 150 : 500 },
        grpcPerRound: quick ? 150 : 500,
        floor: true,
        block: 50,
        warmup: 300,
      },
      {
        name: "resnet50",
        title: "ResNet-50",
        shape: [1, 3, 224, 224],
        rounds: quick ? 2 : 10,
        // Enough binary requests for a p99 interval of a few per cent (~12 beyond the p99 per server).
        perRound: { binary: quick ? 6 : 120, json: quick ? 2 : 10 },
        grpcPerRound: quick ? 6 : 40,
        floor: false,
        block: 1,
        warmup: 3,
      },
    ];
    const dir = mkdtempSync(join(tmpdir(), "packrat-bench-agent-"));
    const loadBefore = loadavg();
    const figures: BenchFigure[] = [];
    const tables: BenchTable[] = [];
    const notes: string[] = [];
    const sections = benchSections();
    try {
      for (const [i, model] of cases.entries()) {
        if (!sections.has("latency")) break;
        const result = await runCase(model, quick, dir, 100 + i);
        const analysed = analyse(model, result, 1000 * (i + 1));
        figures.push(...analysed.figures);
        tables.push(...analysed.tables);
        notes.push(
          `${model.title}: agent plan ⟨1 instance × ${THREADS} thread, b=1⟩, batch timeout 0, instance pinned to CPU ${result.cpus.join(",")} (affinity verified: ${result.affinityOk}); ${model.rounds} rounds of ${model.perRound.binary} binary + ${model.perRound.json} JSON requests per server, alternating between the servers every ${model.block} request${model.block > 1 ? "s" : ""}, after ${model.warmup} warm-up requests each; then per round ${model.perRound.binary} gRPC + ${model.perRound.binary} HTTP binary requests to the agent, alternating the same way.`,
        );
      }
      if (sections.has("rate")) {
        const rate = await runThroughput(quick, dir, 300);
        figures.push(...rate.figures);
        tables.push(...rate.tables);
        notes.push(rate.note);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const loadAfter = loadavg();
    const pick = (label: string) => figures.find((f) => f.label === label);
    const verdict = (f: BenchFigure | undefined, ok: (f: BenchFigure) => boolean) =>
      f
        ? `${f.value}${f.unit === "×" ? "×" : ` ${f.unit}`} [${f.spread?.low}, ${f.spread?.high}] (${ok(f) ? "met" : "NOT met"})`
        : "not measured";
    const within = (f: BenchFigure, pct: number) =>
      f.spread?.low !== undefined &&
      f.spread.high !== undefined &&
      (f.spread.high - f.spread.low) / 2 <= (pct / 100) * f.value;
    const includesOne = (f: BenchFigure) => (f.spread?.low ?? Infinity) <= 1 && (f.spread?.high ?? -Infinity) >= 1;
    const resnetP99 = pick(`p99 latency, agent, ResNet-50 b=1 t=${THREADS}, binary`);
    const baseP99 = pick(`p99 latency, baseline (session.run server), ResNet-50 b=1 t=${THREADS}, binary`);
    notes.unshift(
      `Goals: tiny CNN b=1 t=1 binary p50 agent / baseline ≤ 1.3 — ${verdict(pick(`p50 agent / baseline, tiny CNN b=1 t=${THREADS}, binary`), (f) => f.value <= 1.3)}; p50 added over the floor — ${verdict(pick(`p50 added by the agent over the floor, tiny CNN b=1 t=${THREADS}, binary`), () => true)} (reported); the agent's JSON cost ≤ 1.1× the baseline's — ${verdict(pick("JSON cost agent / baseline (p50 JSON − binary), tiny CNN"), (f) => f.value <= 1.1)}; ResNet-50 p50 ratio's interval includes 1 — ${verdict(pick(`p50 agent / baseline, ResNet-50 b=1 t=${THREADS}, binary`), includesOne)}; ResNet-50 p99 ratio's interval includes 1 — ${verdict(pick(`p99 agent / baseline, ResNet-50 b=1 t=${THREADS}, binary`), includesOne)}, p99 intervals within ±5 %: agent ${resnetP99 && within(resnetP99, 5) ? "yes" : "no"}, baseline ${baseP99 && within(baseP99, 5) ? "yes" : "no"}; max rate on the tiny CNN ≥ 0.9× the baseline's — ${verdict(pick("max rate agent / baseline, tiny CNN, binary"), (f) => f.value >= 0.9)}.`,
      "Baseline: bench/agent-baseline-server.ts, one Node process, one ORT session (intra-op threads = 1, inter-op 1, sequential, all graph optimisations, like an agent instance), session.run on the main thread, that thread pinned to the agent instance's CPU (as the agent pins its instance thread); it speaks the same OIP JSON/binary subset, so the same client drives both. Client: the load generator's OIP client (keep-alive, one socket), closed loop, concurrency 1, in this process. gRPC: the load generator's gRPC client (one HTTP/2 connection, each ModelInferRequest serialized before the clock starts, raw_input_contents), against the agent's AGENT_GRPC_PORT; the baseline speaks no gRPC, so gRPC is compared with the agent's own HTTP binary, interleaved.",
      `Noise: a 2-core machine shared with other engineers' test runs (load average ${loadBefore.map((l) => l.toFixed(2)).join("/")} before, ${loadAfter.map((l) => l.toFixed(2)).join("/")} after); agent and baseline alternate in small blocks (50 tiny-CNN requests ≈ 20 ms, or every single ResNet-50 request) and who goes first alternates, so both see the same noise (on the tiny CNN the floor takes its turn in the rotation too). Spreads are 95% bootstrap intervals (200 resamples) of the pooled samples; the per-round table shows the round-to-round spread.`,
      "Tails: both the agent's instance thread and the baseline's session.run thread are pinned to the same CPU; on this oversubscribed host a pinned thread waits for its CPU whenever another process holds it, so the p99 figures measure the machine as much as the servers.",
      "Breakdown: the agent's Server-Timing gives formation + busy (dispatcher waits), compute (dispatch → result: writing the tensor into the instance's input slab, the Atomics wake-up, session.run there, the wake-up back and the copy out of the output slab) and run (session.run on the instance thread alone), so compute − run is the hand-off, measured; the baseline's compute is session.run alone. HTTP + parse/encode is the client's total minus the server-timed part (socket, body read, OIP parse and validation, response encoding, metrics).",
    );
    return { figures, tables, notes };
  },
};

export default bench;

// `npm run loadgen -- --url http://127.0.0.1:8000 --model NAME --rate 200 --pattern poisson --duration 30s
//   [--binary] [--out run.json]` — see USAGE in cli-options.ts and docs/load-generator.md.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { runClosedLoop, sweepConcurrency } from "./closed-loop";
import { parseCliOptions, USAGE, type LoadgenConfig } from "./cli-options";
import { LoadgenInputError } from "./errors";
import { searchMaxRate } from "./max-rate-search";
import { encodeInferRequest, type EncodedRequest } from "./oip-body";
import { OipClient, TargetError } from "./oip-client";
import { OipGrpcClient } from "./oip-grpc-client";
import { generateInputs } from "./oip-inputs";
import { runOpenLoop } from "./open-loop";
import { buildReport } from "./report";
import type { ProgressSnapshot } from "./run-recorder";
import { buildSchedule } from "./schedule";
import { formatProgress, formatRunSummary, formatSearch, formatSweep } from "./summary-text";
import { processEnvironment } from "./env";

const out = (line: string) => process.stdout.write(`${line}\n`);

function progressPrinter(
  config: LoadgenConfig,
  totalMs: number | undefined,
): ((s: ProgressSnapshot) => void) | undefined {
  if (config.quiet) return undefined;
  const tty = process.stderr.isTTY;
  let lastLine = -Infinity;
  return (s) => {
    if (tty) process.stderr.write(`\r\x1b[2K${formatProgress(s, totalMs)}`);
    else if (s.elapsedMs - lastLine >= 5000) {
      lastLine = s.elapsedMs;
      process.stderr.write(`${formatProgress(s, totalMs)}\n`);
    }
  };
}

function endProgress(config: LoadgenConfig): void {
  if (!config.quiet && process.stderr.isTTY) process.stderr.write("\n");
}

async function main(): Promise<number> {
  let config: LoadgenConfig | "help";
  try {
    config = parseCliOptions(process.argv.slice(2), processEnvironment(), (path) =>
      readFileSync(resolve(path), "utf8"),
    );
  } catch (error) {
    if (error instanceof LoadgenInputError) {
      process.stderr.write(`loadgen: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  if (config === "help") {
    out(USAGE);
    return 0;
  }
  const cfg = config;
  const startedAt = new Date();
  const maxSockets = cfg.mode === "closed" ? Math.max(...cfg.concurrency) : cfg.maxInFlight;
  const target = { url: cfg.url, model: cfg.model, version: cfg.version, timeoutMs: cfg.timeoutMs, token: cfg.token };
  const grpcClient = cfg.protocol === "grpc" ? new OipGrpcClient(target) : undefined;
  const client = grpcClient ?? new OipClient({ ...target, maxSockets });
  const controller = new AbortController();
  process.on("SIGINT", () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write("\nloadgen: stopping (in-flight requests finish; Ctrl-C again to quit now)\n");
    controller.abort();
  });
  try {
    const metadata = await client.modelMetadata();
    const files = Object.fromEntries(
      Object.entries(cfg.inputFiles).map(([name, path]) => {
        try {
          return [name, new Uint8Array(readFileSync(resolve(path)))];
        } catch (error) {
          throw new LoadgenInputError(
            "invalid_input_file",
            `--input-file ${name}`,
            `cannot read ${path}: ${(error as Error).message}`,
          );
        }
      }),
    );
    // A few distinct input sets in rotation, built before the clock starts.
    const bodies: EncodedRequest[] = Array.from(
      { length: Object.keys(files).length ? 1 : cfg.distinctInputs },
      (_, v) => {
        const inputs = generateInputs(metadata.inputs, {
          batch: cfg.batch,
          seed: (cfg.seed + v) >>> 0,
          shapes: cfg.shapes,
          files,
          intHigh: cfg.intHigh,
        });
        return grpcClient ? grpcClient.encode(inputs) : encodeInferRequest(inputs, { binary: cfg.binary });
      },
    );
    const send = (index: number) => client.send(bodies[index % bodies.length]!);
    out(
      `loadgen: ${cfg.mode} loop against ${cfg.url.origin} model ${cfg.model} (${cfg.protocol === "grpc" ? "gRPC, raw" : cfg.binary ? "binary" : "JSON"} tensors, ${bodies[0]!.body.length} bytes a request)`,
    );

    if (cfg.mode === "open") {
      const schedule = buildSchedule(cfg.pattern, {
        durationMs: cfg.durationMs,
        seed: cfg.seed,
        maxRequests: cfg.maxRequests,
      });
      if (schedule.truncated) out(`loadgen: the schedule was cut at --max-requests ${cfg.maxRequests}`);
      const result = await runOpenLoop({
        schedule,
        send,
        maxInFlight: cfg.maxInFlight,
        warmupMs: cfg.warmupMs,
        signal: controller.signal,
        onProgress: progressPrinter(cfg, cfg.durationMs),
      });
      endProgress(cfg);
      for (const line of formatRunSummary(result)) out(line);
      if (result.notReached) out(`stopped early: ${result.notReached} scheduled requests not sent`);
      if (cfg.out)
        writeReport(
          cfg.out,
          buildReport(cfg, startedAt, {
            open: result,
            schedule: { requests: schedule.offsetsMs.length, truncated: schedule.truncated },
          }),
        );
    } else if (cfg.mode === "closed") {
      const sweep = await sweepConcurrency(cfg.concurrency, async (concurrency) => {
        if (!cfg.quiet) process.stderr.write(`concurrency ${concurrency}\n`);
        const run = await runClosedLoop({
          concurrency,
          send,
          durationMs: cfg.durationMs,
          warmupMs: cfg.warmupMs,
          maxRequests: cfg.maxRequests,
          signal: controller.signal,
          onProgress: progressPrinter(cfg, cfg.durationMs),
        });
        endProgress(cfg);
        return run;
      });
      for (const line of formatSweep(sweep.rows)) out(line);
      if (cfg.out) writeReport(cfg.out, buildReport(cfg, startedAt, { closed: sweep }));
    } else {
      const { search } = cfg;
      const result = await searchMaxRate({
        ...search,
        runStep: async (rate) => {
          if (controller.signal.aborted) return { p99Ms: 0, intended: 0, ok: 0 };
          if (!cfg.quiet) process.stderr.write(`step: ${rate.toFixed(1)}/s for ${search.stepMs / 1000}s\n`);
          const schedule = buildSchedule(
            { kind: search.arrivals, rate },
            { durationMs: search.stepMs, seed: cfg.seed, maxRequests: cfg.maxRequests },
          );
          const run = await runOpenLoop({
            schedule,
            send,
            maxInFlight: cfg.maxInFlight,
            warmupMs: Math.min(cfg.warmupMs, search.stepMs / 2),
            signal: controller.signal,
            onProgress: progressPrinter(cfg, search.stepMs),
          });
          endProgress(cfg);
          return { p99Ms: run.latency.p99Ms, intended: run.measured.intended, ok: run.measured.ok };
        },
      });
      for (const line of formatSearch(result, search.p99LimitMs)) out(line);
      if (cfg.out) writeReport(cfg.out, buildReport(cfg, startedAt, { search: result }));
    }
    return 0;
  } catch (error) {
    if (error instanceof LoadgenInputError || error instanceof TargetError) {
      process.stderr.write(`loadgen: ${error.message}\n`);
      return error instanceof TargetError ? 1 : 2;
    }
    throw error;
  } finally {
    client.close();
  }
}

function writeReport(path: string, report: unknown): void {
  writeFileSync(resolve(path), `${JSON.stringify(report, null, 2)}\n`);
  out(`wrote ${path}`);
}

process.exitCode = await main();

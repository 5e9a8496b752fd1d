import type { ConcreteInput } from "@/core/model-analysis/dynamic-dims";
import { projectFile } from "@/lib/project-file";
import { runWatchedChild } from "./run-watched-child";

/**
 * Shapes of every tensor of a model, from one run on zero inputs in a child process that is killed when it runs
 * past a time limit or its resident memory passes a limit.
 */
export type ShapeProbeErrorCode =
  | "UNSUPPORTED_OPERATOR"
  | "LOAD_FAILED"
  | "UNSUPPORTED_INPUT_TYPE"
  | "RUN_FAILED"
  | "TIMEOUT"
  | "MEMORY_LIMIT"
  | "CRASHED";

export class ShapeProbeError extends Error {
  readonly code: ShapeProbeErrorCode;
  readonly parameter = "model";
  /** The operator ONNX Runtime refused, when the message names one (e.g. "com.example:Frobnicate"). */
  readonly operator: string | undefined;

  /** What a crashed probe printed: for the server's log, never stored or shown. */
  readonly diagnostics: string | undefined;

  constructor(code: ShapeProbeErrorCode, message: string, operator?: string, diagnostics?: string) {
    super(message);
    this.diagnostics = diagnostics;
    this.name = "ShapeProbeError";
    this.code = code;
    this.operator = operator;
  }
}

export interface ProbeOptions {
  /** Wall-clock limit for loading and running, in ms. */
  timeoutMs?: number;
  /** Resident memory limit for the child, in bytes (checked from /proc every 50 ms, and its peak at exit). */
  memoryLimitBytes?: number;
  /** ONNX Runtime intra-op threads for the run. */
  threads?: number;
  /** The model keeps data in files beside it: the probe loads its patched copy from that directory. */
  besideModel?: boolean;
}

export interface ProbeResult {
  shapes: Map<string, number[]>;
  /** The child's peak resident memory (VmHWM), when /proc tells it. */
  peakRssBytes: number | null;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 300_000;
export const DEFAULT_PROBE_MEMORY_BYTES = 8 * 1024 ** 3;

// Looked up at the first probe, not at import: inside Next's bundle import.meta.url is a chunk's (project-file.ts).
let childScript: string | undefined;
const probeChildScript = () =>
  (childScript ??= projectFile(
    "src/lib/onnx/probe-shapes-child.mjs",
    () => new URL("./probe-shapes-child.mjs", import.meta.url),
  ));

const UNSUPPORTED_PATTERNS: ReadonlyArray<RegExp> = [
  /(\S+?)\(-?\d+\) is not a registered function\/op/,
  /No Op registered for (\S+) with domain_version/,
  /Could not find an implementation for (\S+?)\(/,
];

/** The operator an ONNX Runtime load error says it has no kernel for (e.g. "com.example:Frobnicate"), if any. */
export function unsupportedOperatorIn(message: string): string | undefined {
  for (const pattern of UNSUPPORTED_PATTERNS) {
    const m = message.match(pattern);
    if (m?.[1]) return m[1];
  }
  return undefined;
}

function classifyFailure(stage: string, message: string): ShapeProbeError {
  if (stage === "input") return new ShapeProbeError("UNSUPPORTED_INPUT_TYPE", message);
  if (stage === "load") {
    const operator = unsupportedOperatorIn(message);
    if (operator)
      return new ShapeProbeError(
        "UNSUPPORTED_OPERATOR",
        `ONNX Runtime cannot run operator ${operator}: ${message}`,
        operator,
      );
    return new ShapeProbeError("LOAD_FAILED", `ONNX Runtime could not load the model: ${message}`);
  }
  return new ShapeProbeError("RUN_FAILED", `ONNX Runtime failed running the model on zero inputs: ${message}`);
}

type ChildReply = { ok: true; shapes: Record<string, number[]> } | { ok: false; stage: string; message: string };

export async function probeShapes(
  modelPath: string,
  inputs: readonly ConcreteInput[],
  options: ProbeOptions = {},
): Promise<ProbeResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const memoryLimit = options.memoryLimitBytes ?? DEFAULT_PROBE_MEMORY_BYTES;
  const limitText = `${(memoryLimit / 1024 ** 2).toFixed(0)} MiB`;
  const outcome = await runWatchedChild<ChildReply>(
    probeChildScript(),
    { modelPath, inputs, threads: options.threads ?? 1, besideModel: options.besideModel === true },
    { timeoutMs, memoryLimitBytes: memoryLimit },
  );
  switch (outcome.kind) {
    case "answered":
      if (!outcome.reply.ok) throw classifyFailure(outcome.reply.stage, outcome.reply.message);
      return { shapes: new Map(Object.entries(outcome.reply.shapes)), peakRssBytes: outcome.peakRssBytes };
    case "killed":
      throw outcome.reason === "TIMEOUT"
        ? new ShapeProbeError(
            "TIMEOUT",
            `running the model once took longer than ${timeoutMs} ms; the probe was stopped`,
          )
        : new ShapeProbeError(
            "MEMORY_LIMIT",
            `running the model once needed more than ${limitText} of memory; the probe was stopped`,
          );
    case "crashed":
      throw outcome.outOfMemory
        ? new ShapeProbeError("MEMORY_LIMIT", `running the model once needed more than ${limitText} of memory`)
        : new ShapeProbeError(
            "CRASHED",
            outcome.message.replace("the child process", "the probe process"),
            undefined,
            outcome.diagnostics,
          );
  }
}

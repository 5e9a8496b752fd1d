// Runs a Node script in a child process that answers one IPC message, under a wall-clock limit and a resident
// memory watchdog (sampled from /proc every 50 ms, plus the peak the child reports with its answer). A child past
// either limit is SIGKILLed: whatever a file does to ONNX Runtime (a huge allocation, a loop), only the child pays.
// The child's own figure matters: one that answers and exits within a sampling interval is a zombie by the time
// the answer is read, and a zombie's /proc status has no VmHWM, so the limit would go unchecked.
// A crash is described in two parts: `message`, safe to show whoever sent the file (how the child ended), and
// `diagnostics`, the tail of its stderr (stacks, server paths, module names), which belongs in the server's log only.
// The child starts with an allowlisted environment (sandboxEnv): none of the server's secrets.
// A child that cannot even be started is the server's fault, not the file's: that rejects with WatchedChildStartError.
import { spawn, type SpawnOptions } from "node:child_process";
import { readFileSync } from "node:fs";
import { removeOrtDebugLog } from "./ort-debug-log";

export interface WatchedChildLimits {
  /** Wall-clock limit from spawn to answer, in ms. */
  timeoutMs: number;
  /** Resident memory limit, in bytes. */
  memoryLimitBytes: number;
}

export type WatchedChildOutcome<T> =
  | { kind: "answered"; reply: T; peakRssBytes: number | null; elapsedMs: number }
  | { kind: "killed"; reason: "TIMEOUT" | "MEMORY_LIMIT"; peakRssBytes: number | null; elapsedMs: number }
  | {
      kind: "crashed";
      /** How the child ended, in words fit for the caller (exit code or signal, nothing it printed). */
      message: string;
      /** The last 4,000 characters of the child's stderr: for the server's log, never for the caller. */
      diagnostics: string;
      outOfMemory: boolean;
      elapsedMs: number;
    };

/** The child process could not be started (no memory, no process slots): a fault of the server, not of the request. */
/**
 * The only variables a sandbox child gets from the server's environment. It parses files anyone with the
 * ml_engineer role can send, so it must hold nothing worth stealing: no DATABASE_URL, no BETTER_AUTH_SECRET, no
 * PACKRAT_ADMIN_PASSWORD, no token. A name or prefix is added here only when the child cannot work without it.
 */
export const SANDBOX_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "TMPDIR",
  "TMP",
  "TEMP",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "NODE_ENV",
  "TSX_TSCONFIG_PATH",
];
/** ONNX Runtime's and OpenMP's own knobs (threading, logging): nothing secret is named so. */
export const SANDBOX_ENV_PREFIXES: readonly string[] = ["ORT_", "OMP_"];

/** The allowlisted part of `source`: what a sandbox child is started with. */
// eslint-disable-next-line no-restricted-properties -- forwards an allowlisted part of the environment, reads no setting
export function sandboxEnv(source: Record<string, string | undefined> = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (
      value !== undefined &&
      (SANDBOX_ENV_NAMES.includes(name) || SANDBOX_ENV_PREFIXES.some((p) => name.startsWith(p)))
    )
      out[name] = value;
  }
  return out;
}

export interface WatchedChildOptions {
  /** Node flags before the script (e.g. ["--import", "tsx"] for a TypeScript child). */
  execArgv?: string[];
  /** IPC encoding: "advanced" (structured clone) keeps undefined, Maps and BigInts that JSON would lose. */
  serialization?: "json" | "advanced";
}

export class WatchedChildStartError extends Error {
  readonly code = "CHILD_START_FAILED";
  constructor(readonly diagnostics: string) {
    super("the sandbox process could not be started");
    this.name = "WatchedChildStartError";
  }
}

export class WatchedChildLimitError extends Error {
  readonly code = "BAD_LIMIT";
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
    this.name = "WatchedChildLimitError";
  }
}

/** A /proc/<pid>/status field in bytes; null where /proc is absent or the process is gone. */
function statusBytes(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const match = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return match?.[1] ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export function runWatchedChild<T>(
  script: string,
  request: unknown,
  limits: WatchedChildLimits,
  options: WatchedChildOptions = {},
): Promise<WatchedChildOutcome<T>> {
  if (!Number.isFinite(limits.timeoutMs) || limits.timeoutMs <= 0)
    throw new WatchedChildLimitError("timeoutMs", `must be a positive number of ms, got ${limits.timeoutMs}`);
  if (!Number.isFinite(limits.memoryLimitBytes) || limits.memoryLimitBytes <= 0) {
    throw new WatchedChildLimitError(
      "memoryLimitBytes",
      `must be a positive number of bytes, got ${limits.memoryLimitBytes}`,
    );
  }
  // V8's own heap limit below the watchdog's, so a JS-side blow-up ends as "out of memory", not a kill.
  const heapMb = Math.max(64, Math.floor(limits.memoryLimitBytes / 1024 ** 2));
  const started = performance.now();
  const spawnOptions: SpawnOptions = {
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    env: sandboxEnv() as NodeJS.ProcessEnv,
    serialization: options.serialization ?? "json",
  };
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${heapMb}`, ...(options.execArgv ?? []), script],
    spawnOptions,
  );
  const pid = child.pid;

  return new Promise((resolve, reject) => {
    let reply: { value: T } | undefined;
    let killedFor: "TIMEOUT" | "MEMORY_LIMIT" | undefined;
    let peak: number | null = null;
    let stderr = "";
    const elapsed = () => Math.round(performance.now() - started);

    const kill = (why: "TIMEOUT" | "MEMORY_LIMIT") => {
      if (killedFor === undefined && reply === undefined) {
        killedFor = why;
        child.kill("SIGKILL");
      }
    };
    const sample = () => {
      if (pid === undefined) return;
      const hwm = statusBytes(pid, "VmHWM");
      if (hwm !== null) peak = Math.max(peak ?? 0, hwm);
      if ((hwm ?? statusBytes(pid, "VmRSS") ?? 0) > limits.memoryLimitBytes) kill("MEMORY_LIMIT");
    };
    const timer = setTimeout(() => kill("TIMEOUT"), limits.timeoutMs);
    const watch = setInterval(sample, 50);
    const finish = (outcome: WatchedChildOutcome<T>) => {
      clearTimeout(timer);
      clearInterval(watch);
      resolve(outcome);
    };

    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on("message", (message) => {
      sample();
      const reported = (message as { peakRssBytes?: unknown } | null)?.peakRssBytes;
      if (typeof reported === "number" && Number.isFinite(reported) && reported > 0)
        peak = Math.max(peak ?? 0, reported);
      if (killedFor === undefined && peak !== null && peak > limits.memoryLimitBytes) {
        killedFor = "MEMORY_LIMIT"; // past the limit, even if it got as far as answering: the answer is not used
        child.kill("SIGKILL");
      }
      if (killedFor === undefined) reply = { value: message as T };
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      clearInterval(watch);
      reject(new WatchedChildStartError(error.message));
    });
    child.on("exit", (code, signal) => {
      if (pid !== undefined) removeOrtDebugLog(pid);
      if (killedFor !== undefined)
        return finish({ kind: "killed", reason: killedFor, peakRssBytes: peak, elapsedMs: elapsed() });
      if (reply !== undefined)
        return finish({ kind: "answered", reply: reply.value, peakRssBytes: peak, elapsedMs: elapsed() });
      finish({
        kind: "crashed",
        outOfMemory: /heap out of memory|Allocation failed|std::bad_alloc/i.test(stderr),
        elapsedMs: elapsed(),
        message: `the child process ended without an answer (${code !== null ? `exit ${code}` : `signal ${signal}`})`,
        diagnostics: stderr.trim(),
      });
    });
    child.send(request as object);
  });
}

// Test helper: runs the real agent CLI (supervisor + serving process) on a free port and waits until it is ready.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { processEnvironment } from "./env";

export function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => done(port));
    });
  });
}

export interface SpawnedTsx {
  child: ChildProcess;
  output: () => string;
}

/** Runs `node --import tsx <script> …args`, its stdout and stderr collected for the test's error messages. */
export function spawnTsx(
  script: string,
  args: string[],
  options: { env?: Record<string, string | undefined>; detached?: boolean } = {},
): SpawnedTsx {
  const child = spawn(process.execPath, ["--import", "tsx", resolve(script), ...args], {
    env: processEnvironment(options.env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  let log = "";
  child.stdout!.on("data", (d) => {
    log += d;
  });
  child.stderr!.on("data", (d) => {
    log += d;
  });
  return { child, output: () => log };
}

/** Polls `ready` every `intervalMs` until it holds; throws with the output if the process exits first or 60 s pass. */
export async function waitUntilReady(
  { child, output }: SpawnedTsx,
  what: string,
  ready: () => Promise<boolean> | boolean,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${what} exited (${child.exitCode}) before it was ready:\n${output()}`);
    if (await ready()) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready after 60 s:\n${output()}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface RunningAgent {
  url: string;
  process: ChildProcess;
  output: () => string;
  stop: () => Promise<number | null>;
  dir: string;
}

/** `detached`: the agent leads a process group of its own (supervisor and serving process). */
export async function startAgent(options: {
  modelBytes: Uint8Array;
  plan: unknown;
  name?: string;
  env?: Record<string, string>;
  detached?: boolean;
}): Promise<RunningAgent> {
  const dir = mkdtempSync(join(tmpdir(), "packrat-agent-test-"));
  const modelPath = join(dir, `${options.name ?? "model"}.onnx`);
  writeFileSync(modelPath, options.modelBytes);
  writeFileSync(join(dir, "plan.json"), JSON.stringify(options.plan));
  const port = await freePort();
  const spawned = spawnTsx(
    "apps/agent/src/cli.ts",
    ["--model", modelPath, "--plan", join(dir, "plan.json"), "--port", String(port)],
    {
      env: { AGENT_STATE_DIR: join(dir, "state"), AGENT_INSTANCE_RESTART_BACKOFF_MS: "50", ...options.env },
      detached: options.detached,
    },
  );
  const { child } = spawned;
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(
      spawned,
      "agent",
      async () => (await fetch(`${url}/v2/health/ready`).catch(() => undefined))?.status === 200,
    );
  } catch (error) {
    if (child.exitCode === null) child.kill("SIGKILL");
    throw error;
  }
  return {
    url,
    process: child,
    dir,
    output: spawned.output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
        child.kill("SIGTERM");
        const code = await exited;
        rmSync(dir, { recursive: true, force: true });
        return code;
      }
      rmSync(dir, { recursive: true, force: true });
      return child.exitCode;
    },
  };
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The first served model's entry of /agent/status. */
export async function servedModelStatus(a: RunningAgent) {
  return (await (await fetch(`${a.url}/agent/status`)).json()).models[0];
}

/** Writes a new plan and SIGHUPs the agent; resolves with the model's status once `generation` was tried. */
export async function applyPlan(a: RunningAgent, plan: unknown, generation: number) {
  writeFileSync(join(a.dir, "plan.json"), JSON.stringify(plan));
  a.process.kill("SIGHUP");
  return waitFor(
    async () => {
      const s = await servedModelStatus(a);
      return s.lastReconfiguration?.generation === generation ? s : undefined;
    },
    60_000,
    `generation ${generation}`,
  );
}

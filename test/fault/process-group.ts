// Child processes of the fault-tolerance suite: each leads a process group of its own, so a kill reaches every
// process under it (an agent's supervisor and serving process), and cleanup leaves nothing behind.
import type { ChildProcess } from "node:child_process";
import { spawnTsx, waitUntilReady } from "../../apps/agent/src/test-agent-process";

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once("exit", () => done()));
}

/** Signals the whole group `child` leads; a group already gone is not an error. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** SIGKILLs the group and waits for its leader to be reaped. */
export async function killGroup(child: ChildProcess): Promise<void> {
  signalGroup(child, "SIGKILL");
  await exited(child);
}

/** What a test started, stopped in reverse order at the end whatever happened. */
export class Cleanup {
  private readonly steps: Array<() => Promise<void> | void> = [];
  add(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }
  group(child: ChildProcess): ChildProcess {
    this.add(() => killGroup(child));
    return child;
  }
  async run(): Promise<void> {
    while (this.steps.length) {
      try {
        await this.steps.pop()!();
      } catch (error) {
        console.warn(`[fault] cleanup step failed: ${(error as Error).message}`);
      }
    }
  }
}

export interface ControlPlaneProcess {
  process: ChildProcess;
  url: string;
  log: () => string;
}

/** Starts test/fault/control-plane-main.ts on `port` and waits until its health route answers (200 or 503). */
export async function startControlPlaneProcess(
  port: number,
  env: Record<string, string>,
  cleanup: Cleanup,
): Promise<ControlPlaneProcess> {
  const spawned = spawnTsx("test/fault/control-plane-main.ts", [], {
    env: { ...env, CONTROL_PLANE_PORT: String(port) },
    detached: true,
  });
  cleanup.group(spawned.child);
  await waitUntilReady(spawned, "control plane", () => /listening on/.test(spawned.output()), 50);
  return { process: spawned.child, url: `http://127.0.0.1:${port}`, log: spawned.output };
}

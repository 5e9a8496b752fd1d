// Fault tolerance of one agent under load (issue #22, items 3, 4 and 7): its serving process SIGKILLed, an instance
// whose run throws, five thread reconfigurations, SIGTERM. A stand-alone agent (no control plane, so no database)
// leading its own process group, tiny CNN, open-loop load at half the capacity measured first (at most 150/s, so
// the client in this process is not the bottleneck on 2 cores). Every answer is checked against ONNX Runtime.
// Times are reported (test/fault/figures.ts), never asserted; the 60 s bounds only stop a hang.
import { afterEach, describe, expect, it } from "vitest";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import {
  applyPlan,
  servedModelStatus,
  startAgent,
  waitFor,
  type RunningAgent,
} from "../../apps/agent/src/test-agent-process";
import { recordFigures } from "./figures";
import { measureCapacity, startOpenLoad, TinyCnnRequests, type LoadFigures } from "./inference-load";
import { Cleanup, killGroup } from "./process-group";

const model = buildTinyCnn({ seed: 22, producerVersion: "packrat-fault" });
const twoByOne = { instances: [{ count: 2, threads: 1, batch: 4 }], batchTimeoutMs: 2 };
const oneByTwo = { instances: [{ count: 1, threads: 2, batch: 4 }], batchTimeoutMs: 2 };
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function agentUnderTest(
  plan: unknown,
  env: Record<string, string> = {},
): Promise<{ agent: RunningAgent; requests: TinyCnnRequests; rate: number; capacity: number }> {
  const agent = await startAgent({
    modelBytes: model,
    name: "tiny-cnn",
    plan,
    detached: true,
    env: { AGENT_FAULT_INJECTION: "true", ...env },
  });
  cleanup.add(() => killGroup(agent.process));
  const requests = await TinyCnnRequests.create(model);
  const capacity = await measureCapacity(requests.sender(agent.url));
  return { agent, requests, capacity, rate: Math.max(10, Math.min(150, Math.round(capacity / 2))) };
}

const summary = (load: LoadFigures) => ({
  sent: load.sent,
  ok: load.ok,
  failed: load.failed,
  lost: load.lost,
  wrong: load.wrong,
  statuses: load.statuses,
  transportErrors: load.transportErrors,
  dropped: load.dropped,
});
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Whether `pid` is still a process (a zombie counts: its parent has not reaped it yet). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

describe("agent faults under load", () => {
  it("SIGKILLed serving process: the supervisor keeps the port and restarts it; nothing is refused, requests sent during the restart wait and are answered right after it, only those on its connections at the kill fail", async () => {
    // Held connections wait as long as the restart takes here (the load's own 15 s bound still catches a hang), and
    // as many as arrive during it: at 150/s the default 1024 would shed on a host that restarts in over 6.8 s.
    const { agent, requests, rate, capacity } = await agentUnderTest(twoByOne, {
      AGENT_HELD_CONNECTIONS_TIMEOUT_MS: "60000",
      AGENT_HELD_CONNECTIONS_MAX: "10000",
    });
    const before = await (await fetch(`${agent.url}/agent/status`)).json();
    // In flight may reach rate × restart time (≈ 360 at 150/s here): a cap above it, so every request is sent.
    const load = startOpenLoad(requests.sender(agent.url), rate, 2_048);
    await pause(1_000);
    const killedAt = Date.now();
    process.kill(before.pid, "SIGKILL");
    // Gone (reaped by the supervisor, its sockets closed), and this process has since read the FINs of its pooled
    // connections to it (a poll phase ran): from here on every request goes on a new connection to the supervisor.
    await waitFor(async () => (alive(before.pid) ? undefined : true), 60_000, "the serving process to be gone");
    await new Promise((r) => setImmediate(r));
    const goneAt = Date.now();
    // Serving again: a request sent now waits in the supervisor, then is answered 200 with the right logits.
    const probe = requests.sender(agent.url);
    await waitFor(async () => ((await probe(1)).kind === "ok" ? true : undefined), 60_000, "the agent to serve again");
    const backAt = Date.now();
    await pause(1_000);
    const figures = await load.stop();
    const after = await (await fetch(`${agent.url}/agent/status`)).json();
    const failed = figures.outcomes.filter((o) => o.outcome.kind !== "ok");
    const duringRestart = figures.outcomes.filter((o) => o.sentAt > goneAt && o.sentAt < backAt);
    recordFigures("serving-process-sigkill", {
      ...summary(figures),
      ratePerS: rate,
      capacityPerS: Math.round(capacity),
      // Failed: sent before the kill (in flight), or between the kill and the process being gone (a pooled
      // connection the client had not yet seen close).
      inFlightFailed: failed.filter((o) => o.sentAt < killedAt).length,
      failedBeforeGone: failed.filter((o) => o.sentAt >= killedAt && o.sentAt <= goneAt).length,
      refused: figures.transportErrors.refused ?? 0,
      sentDuringRestart: duringRestart.length,
      answeredDuringRestart: duringRestart.filter((o) => o.outcome.kind === "ok").length,
      longestWaitMs: Math.max(0, ...duringRestart.map((o) => o.doneAt - o.sentAt)),
      heldConnections: after.lastRestartHeldConnections,
      serveAgainMs: backAt - killedAt,
      restartGapMs: Math.round(after.lastRestartGapMs),
    });
    expect(after.pid).not.toBe(before.pid);
    expect(after.servingProcessRestarts).toBe(before.servingProcessRestarts + 1);
    expect(figures.wrong).toBe(0);
    expect(figures.lost).toBe(0);
    // The port never refused: the supervisor held it through the restart.
    expect(figures.transportErrors.refused ?? 0).toBe(0);
    // Failures are resets of connections the dead process had, never an HTTP error (no 503: nothing timed out waiting).
    expect(figures.statuses).toEqual({});
    expect(failed.filter((o) => o.sentAt > goneAt).map((o) => o.outcome.detail)).toEqual([]);
    // Requests were sent while no serving process was there; each was answered right, after the restart.
    expect(duringRestart.length).toBeGreaterThan(0);
    expect(duringRestart.filter((o) => o.outcome.kind !== "ok")).toEqual([]);
    expect(after.lastRestartHeldConnections).toBeGreaterThan(0);
    expect(figures.ok + figures.failed).toBe(figures.sent);
  });

  it("an instance whose run throws fails only its own batch, under load", async () => {
    const { agent, requests, rate } = await agentUnderTest(twoByOne);
    const restarts = (await servedModelStatus(agent)).instanceRestarts;
    const load = startOpenLoad(requests.sender(agent.url), rate);
    await pause(500);
    const faulty = await fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
      method: "POST",
      body: JSON.stringify({
        inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", data: new Array(3072).fill(0.5) }],
        parameters: { packrat_fault: "throw" },
      }),
    });
    await waitFor(
      async () => ((await servedModelStatus(agent)).instanceRestarts > restarts ? true : undefined),
      60_000,
      "the instance to be recreated",
    );
    await pause(500);
    const figures = await load.stop();
    recordFigures("instance-throws", { ...summary(figures), ratePerS: rate });
    expect(faulty.status).toBe(503);
    // The faulty request's batch holds at most B = 2 × 4 = 8 rows (split across both instances; the throwing piece
    // fails the whole batch): at most 7 others fail with it, each with a 503. A full batch needs load; a quiet host
    // sees 0–3, a loaded one 6.
    expect(figures.failed).toBeLessThanOrEqual(7);
    expect(Object.keys(figures.statuses).filter((s) => s !== "503")).toEqual([]);
    expect(figures.transportErrors).toEqual({});
  });

  it("five thread reconfigurations under ≤ 50% load: zero non-2xx", async () => {
    const { agent, requests, rate, capacity } = await agentUnderTest(oneByTwo);
    const load = startOpenLoad(requests.sender(agent.url), rate);
    const switchMs: number[] = [];
    const plans = [twoByOne, oneByTwo, twoByOne, oneByTwo, twoByOne];
    for (const [i, plan] of plans.entries()) {
      await pause(300);
      const s = await applyPlan(agent, plan, i + 2);
      expect(s.lastReconfiguration.outcome).toBe("applied");
      expect(s.instances.map((x: { threads: number }) => x.threads)).toEqual(plan === twoByOne ? [1, 1] : [2]);
      switchMs.push(s.lastReconfiguration.phasesMs.total);
    }
    await pause(300);
    const figures = await load.stop();
    recordFigures("reconfigure-threads-x5", {
      ...summary(figures),
      ratePerS: rate,
      capacityPerS: Math.round(capacity),
      switchMs: switchMs.map(Math.round),
    });
    expect(figures.failed).toBe(0);
    expect(figures.lost).toBe(0);
    expect(figures.ok).toBe(figures.sent);
  });

  it("SIGTERM under load: the agent drains; every request sent before the signal succeeds", async () => {
    // Batches of up to 8 wait 20 ms to fill, so requests are queued when the signal lands.
    const { agent, requests, rate } = await agentUnderTest({
      instances: [{ count: 1, threads: 2, batch: 8 }],
      batchTimeoutMs: 20,
    });
    const load = startOpenLoad(requests.sender(agent.url), rate);
    await pause(1_500);
    const queued = (await servedModelStatus(agent)).queueRows;
    const signalledAt = Date.now();
    const exit = new Promise<number | null>((done) => agent.process.once("exit", (code) => done(code)));
    agent.process.kill("SIGTERM");
    const code = await exit;
    const drainMs = Date.now() - signalledAt;
    const figures = await load.stop();
    // "Before the signal" means at the agent before it: a request this process handed to its HTTP client in the
    // last moments before the kill may still be on its way when the serving process starts draining, and then is
    // rightly told 503. So the claim is made for requests sent over 20 ms before the signal; those sent in those
    // 20 ms must end as the ones after it may (200, 503 or refused), never wrong and never hanging.
    const before = figures.outcomes.filter((o) => o.sentAt < signalledAt - 20);
    const failedBefore = before.filter((o) => o.outcome.kind !== "ok");
    const after = figures.outcomes.filter((o) => o.sentAt >= signalledAt - 20);
    recordFigures("agent-sigterm", {
      sent: before.length,
      ok: before.length - failedBefore.length,
      failed: failedBefore.length,
      lost: before.filter((o) => o.outcome.transport === "timed_out").length,
      queuedRowsAtSignal: queued,
      drainMs,
      exitCode: code,
      sentAfterSignal: after.length,
      refusedAfterSignal: after.filter((o) => o.outcome.kind === "transport_error").length,
      notReadyAfterSignal: after.filter((o) => o.outcome.status === 503).length,
      ratePerS: rate,
    });
    expect(failedBefore.map((o) => o.outcome.detail)).toEqual([]);
    expect(before.length).toBeGreaterThan(0);
    expect(code).toBe(0);
    // After the signal the agent says it is not ready (503), then no longer listens (refused): never wrong, never a hang.
    expect(
      after.filter((o) => o.outcome.kind !== "ok" && o.outcome.kind !== "transport_error" && o.outcome.status !== 503),
    ).toEqual([]);
    expect(after.filter((o) => o.outcome.transport === "timed_out")).toEqual([]);
  });
});

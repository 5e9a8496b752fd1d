// Live reconfiguration under load (Packrat §3.7): switch the tiny CNN ⟨1 × 2 threads⟩ ↔ ⟨2 × 1⟩ repeatedly while a
// paced client sends 40 requests/s; count failed requests and time each switch's phases. Baseline, same run: the
// restart a serving stack without live reconfiguration does (kill the serving process; it comes back with the plan).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { startAgent, waitFor, type RunningAgent } from "../apps/agent/src/test-agent-process";
import { summarize } from "./sample-stats";
import type { Benchmark } from "./types";

const ROW = 3 * 32 * 32;

function paced(url: string) {
  const outcomes: Array<Promise<number>> = [];
  const body = JSON.stringify({
    inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", data: new Array(ROW).fill(0.5) }],
  });
  const timer = setInterval(() => {
    outcomes.push(
      fetch(`${url}/v2/models/tiny-cnn/infer`, { method: "POST", body }).then(
        (r) => r.status,
        () => 0,
      ),
    );
  }, 25);
  return {
    stop: async () => {
      clearInterval(timer);
      return Promise.all(outcomes);
    },
  };
}

async function modelStatus(agent: RunningAgent) {
  return (await (await fetch(`${agent.url}/agent/status`)).json()) as {
    pid: number;
    lastRestartGapMs: number | null;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    models: Array<Record<string, any>>;
  };
}

const plans = [
  { instances: [{ count: 2, threads: 1, batch: 2 }], batchTimeoutMs: 2 },
  { instances: [{ count: 1, threads: 2, batch: 4 }], batchTimeoutMs: 2 },
];

const bench: Benchmark = {
  name: "reconfiguration",
  description:
    "Switch time and failed requests while switching ⟨1×2⟩ ↔ ⟨2×1⟩ under 40 req/s, vs restarting the serving process",
  async run({ quick }) {
    const switches = quick ? 4 : 12;
    const restarts = quick ? 2 : 4;
    const agent = await startAgent({
      modelBytes: buildTinyCnn({ seed: 1, producerVersion: "bench" }),
      name: "tiny-cnn",
      plan: plans[1],
    });
    try {
      // Live switches.
      const load = paced(agent.url);
      const totals: number[] = [];
      const phases = {
        start: [] as number[],
        warm: [] as number[],
        switch: [] as number[],
        drain: [] as number[],
        stop: [] as number[],
      };
      for (let i = 0; i < switches; i++) {
        await new Promise((r) => setTimeout(r, 250));
        writeFileSync(join(agent.dir, "plan.json"), JSON.stringify(plans[i % 2]));
        agent.process.kill("SIGHUP");
        const report = await waitFor(
          async () => {
            const r = (await modelStatus(agent)).models[0]!.lastReconfiguration;
            return r?.generation === i + 2 ? r : undefined;
          },
          60_000,
          `generation ${i + 2}`,
        );
        if (report.outcome !== "applied") throw new Error(`switch ${i} failed: ${report.error}`);
        totals.push(report.phasesMs.total);
        for (const k of Object.keys(phases) as Array<keyof typeof phases>) phases[k].push(report.phasesMs[k]);
      }
      const liveStatuses = await load.stop();
      const liveFailed = liveStatuses.filter((s) => s !== 200).length;

      // Baseline: restart the serving process (what a stack without live reconfiguration must do).
      const restartLoad = paced(agent.url);
      const gaps: number[] = [];
      for (let i = 0; i < restarts; i++) {
        await new Promise((r) => setTimeout(r, 300));
        const before = await modelStatus(agent);
        process.kill(before.pid, "SIGKILL");
        const after = await waitFor(
          async () => {
            const s = await modelStatus(agent);
            return s.pid !== before.pid && s.models[0]?.state === "ready" && s.lastRestartGapMs !== null
              ? s
              : undefined;
          },
          60_000,
          "the serving process to come back",
        );
        gaps.push(after.lastRestartGapMs!);
      }
      await new Promise((r) => setTimeout(r, 300));
      const restartStatuses = await restartLoad.stop();
      const restartFailed = restartStatuses.filter((s) => s !== 200).length;

      const t = summarize(totals);
      const g = summarize(gaps);
      return {
        figures: [
          {
            label: "live switch time, p50",
            value: t.p50,
            unit: "ms",
            samples: t.n,
            spread: { kind: "min-max", low: t.min, high: t.max },
          },
          { label: "live switch time, max", value: t.max, unit: "ms", samples: t.n },
          {
            label: "failed requests during live switches (goal 0)",
            value: liveFailed,
            unit: "requests",
            samples: liveStatuses.length,
          },
          {
            label: "restart baseline: serving gap, p50",
            value: g.p50,
            unit: "ms",
            samples: g.n,
            spread: { kind: "min-max", low: g.min, high: g.max },
          },
          {
            label: "restart baseline: failed requests",
            value: restartFailed,
            unit: "requests",
            samples: restartStatuses.length,
          },
          {
            label: "failed-request rate, restart baseline / live",
            value:
              restartFailed /
              restartStatuses.length /
              Math.max(liveFailed / liveStatuses.length, 1 / liveStatuses.length),
            unit: "× (live floor: 1 request)",
          },
        ],
        tables: [
          {
            title:
              "Live switch phases (ms), ⟨1×2⟩ ↔ ⟨2×1⟩ on 2 cores (overlap staging: the new set warms on the old set's cores)",
            columns: ["phase", "p50", "max"],
            rows: (Object.keys(phases) as Array<keyof typeof phases>).map((k) => [
              k,
              summarize(phases[k]).p50,
              summarize(phases[k]).max,
            ]),
          },
        ],
        notes: [
          `${switches} live switches and ${restarts} restarts under a paced client at 40 requests/s (1 row each).`,
          "Switch time runs from the agent receiving the new generation to the old set stopped; requests keep queueing throughout.",
          "The restart baseline SIGKILLs the serving process; the agent's supervisor restarts it. Requests in flight fail, new connections are refused until it listens again.",
        ],
      };
    } finally {
      await agent.stop();
    }
  },
};

export default bench;

// Profiling protocols on the same models and grid, in one run: the decision-aware rule (interleaved rounds, a cell
// stops once its interval cannot move the optimizer's plan for any B by more than 2%) against the paper's fixed
// 10 + 100 iterations (interleaved), both under the same runner. Figures: measuring time ("adaptive speedup over
// fixed"), plan equivalence for B = 1…max batch (under the fixed profile, the decision-aware profile's plan within 2%
// of the fixed profile's own plan), repeatability (two decision-aware profiles apart in time), and the noise floor of
// two fixed runs, interleaved and one cell after another (the old way), per cell and in plans.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { plansByBatch, planLatencyUnder } from "@packrat/core/profiling/decision-rule";
import { DECISION_STOPPING_RULE, PAPER_STOPPING_RULE, type StoppingRule } from "@packrat/core/profiling/stopping-rule";
import { buildMobilenetV2 } from "@packrat/modelzoo/mobilenet-v2";
import { buildResnet50 } from "@packrat/modelzoo/resnet50";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { ProfileRunner, type ProfiledCell } from "../apps/agent/src/profiler/profile-runner";
import { readHostTopology } from "../apps/agent/src/topology-reader";
import { summarize } from "./sample-stats";
import type { Benchmark, BenchFigure, BenchTable } from "./types";

const TOLERANCE = 0.02;

interface Run {
  cells: Map<string, ProfiledCell>;
  wallMs: number;
  iterations: number;
}

async function profile(
  modelPath: string,
  threads: number[],
  batches: number[],
  rule: StoppingRule,
  budgetCpus: number[],
  interleave: boolean,
  seed: number,
): Promise<Run> {
  const { topology } = readHostTopology();
  const cells = new Map<string, ProfiledCell>();
  const started = performance.now();
  // No re-measuring here: every arm is measured under the same conditions; interference is reported per cell.
  await new ProfileRunner(topology).run(
    { modelPath, threads, batches, dimensions: {}, rule, budgetCpus, interleave, seed, maxRemeasures: 0 },
    async (cell) => {
      cells.set(`${cell.threads}x${cell.batch}`, cell);
    },
  );
  const wallMs = performance.now() - started;
  console.log(
    `  [profiling] ${rule.kind}${interleave ? "" : " (one cell after another)"}: ${(wallMs / 1000).toFixed(1)} s, ${new Date().toISOString()}`,
  );
  const iterations = [...cells.values()].reduce((s, c) => s + c.stats.iterations + rule.warmup, 0);
  return { cells, wallMs, iterations };
}

const asProfile = (run: Run) =>
  [...run.cells.values()].map((c) => ({ threads: c.threads, batch: c.batch, latencyMs: c.stats.meanMs }));

/** For B = 1…maxBatch: under `judge`'s profile, is `candidate`'s plan within 2% of `judge`'s own plan? */
function equivalence(judge: Run, candidate: Run, cores: number, maxBatch: number) {
  const judgeProfile = asProfile(judge);
  const at = (t: number, b: number) => judge.cells.get(`${t}x${b}`)!.stats.meanMs;
  const own = plansByBatch(judgeProfile, cores, maxBatch);
  const other = plansByBatch(asProfile(candidate), cores, maxBatch);
  const gaps: number[] = [];
  for (let B = 1; B <= maxBatch; B++) {
    if (!own[B] || !other[B]) continue;
    gaps.push(planLatencyUnder(other[B]!.cells, at) / own[B]!.latencyMs - 1);
  }
  return {
    gaps,
    within: gaps.filter((g) => g <= TOLERANCE + 1e-12).length,
    total: gaps.length,
    worst: Math.max(0, ...gaps),
  };
}

function cellDifferences(a: Run, b: Run): number[] {
  return [...a.cells.values()].map((c) => {
    const other = b.cells.get(`${c.threads}x${c.batch}`)!;
    return (Math.abs(c.stats.meanMs - other.stats.meanMs) / other.stats.meanMs) * 100;
  });
}

const bench: Benchmark = {
  name: "profiling",
  description:
    "Decision-aware stopping on interleaved rounds vs the paper's fixed 10 + 100: measuring time, plan equivalence for every B, repeatability, and the noise floor of two fixed runs interleaved vs one cell after another",
  async run({ quick }) {
    const dir = mkdtempSync(join(tmpdir(), "packrat-bench-profiling-"));
    try {
      const { allowedCpus } = readHostTopology();
      const threads = Array.from({ length: Math.min(2, allowedCpus.length) }, (_, i) => i + 1);
      const cores = Math.max(...threads);
      // Full: the tiny CNN and MobileNetV2 with every arm (the noise floor, interleaved vs not), ResNet-50 with the
      // fixed reference and two decision-aware runs: one fixed run of it took 543 s on 2 quiet cores, so its
      // noise-floor arms (three more fixed runs) would take about 27 minutes. Each model is built when reached.
      const models = [
        {
          name: "tiny CNN",
          build: () => buildTinyCnn({ seed: 1, producerVersion: "bench" }),
          batches: [1, 2, 4, 8],
          noiseFloor: true,
        },
        ...(quick
          ? []
          : [
              {
                name: "MobileNetV2",
                build: () => buildMobilenetV2({ seed: 1, producerVersion: "bench" }),
                batches: [1, 2, 4, 8, 16],
                noiseFloor: true,
              },
              {
                name: "ResNet-50",
                build: () => buildResnet50({ seed: 1, producerVersion: "bench" }),
                batches: [1, 2, 4, 8, 16],
                noiseFloor: false,
              },
            ]),
      ];
      const figures: BenchFigure[] = [];
      const rows: BenchTable["rows"] = [];
      const planRows: BenchTable["rows"] = [];
      const notes: string[] = [];
      let seed = 1;
      for (const model of models) {
        const path = join(dir, `${model.name.replace(/\W+/g, "-")}.onnx`);
        writeFileSync(path, model.build());
        console.log(`  [profiling] ${model.name}: t ∈ {${threads.join(", ")}}, b ∈ {${model.batches.join(", ")}}`);
        const maxBatch = Math.max(...model.batches);
        const run = (rule: StoppingRule, interleave: boolean) =>
          profile(path, threads, model.batches, rule, allowedCpus, interleave, seed++);
        // Order: the arms alternate in time, and the two decision-aware runs are apart (fixed runs between them).
        const sequentialA = model.noiseFloor ? await run(PAPER_STOPPING_RULE, false) : undefined;
        const fixedA = await run(PAPER_STOPPING_RULE, true);
        const decisionA = await run(DECISION_STOPPING_RULE, true);
        const sequentialB = model.noiseFloor ? await run(PAPER_STOPPING_RULE, false) : undefined;
        const fixedB = model.noiseFloor ? await run(PAPER_STOPPING_RULE, true) : undefined;
        const decisionB = await run(DECISION_STOPPING_RULE, true);

        const decisionMs = (decisionA.wallMs + decisionB.wallMs) / 2;
        const speedup = fixedA.wallMs / decisionMs;
        const eqA = equivalence(fixedA, decisionA, cores, maxBatch);
        const eqB = equivalence(fixedA, decisionB, cores, maxBatch);
        const repeat = equivalence(decisionA, decisionB, cores, maxBatch);
        const iterations = summarize(
          [...decisionA.cells.values(), ...decisionB.cells.values()].map((c) => c.stats.iterations),
        );
        const interference = summarize(
          [...fixedA.cells.values(), ...decisionA.cells.values(), ...decisionB.cells.values()].map(
            (c) => c.interferencePct,
          ),
        );
        figures.push(
          {
            label: `${model.name}: measuring time, fixed 10 + 100 interleaved (baseline)`,
            value: fixedA.wallMs / 1000,
            unit: "s",
          },
          {
            label: `${model.name}: measuring time, decision-aware`,
            value: decisionMs / 1000,
            unit: "s",
            samples: 2,
            spread: {
              kind: "min-max",
              low: Math.min(decisionA.wallMs, decisionB.wallMs) / 1000,
              high: Math.max(decisionA.wallMs, decisionB.wallMs) / 1000,
            },
          },
          {
            label: `${model.name}: adaptive speedup over fixed`,
            value: speedup,
            unit: "×",
            samples: 2,
            spread: {
              kind: "min-max",
              low: fixedA.wallMs / Math.max(decisionA.wallMs, decisionB.wallMs),
              high: fixedA.wallMs / Math.min(decisionA.wallMs, decisionB.wallMs),
            },
          },
          {
            label: `${model.name}: plan equivalence with the fixed profile, B with the decision-aware plan within 2% (both runs)`,
            value: eqA.within + eqB.within,
            unit: `of ${eqA.total + eqB.total} B`,
          },
          {
            label: `${model.name}: plan equivalence, worst gap under the fixed profile`,
            value: Math.max(eqA.worst, eqB.worst) * 100,
            unit: "%",
          },
          {
            label: `${model.name}: repeatability, B where two decision-aware profiles choose equivalent plans`,
            value: (100 * repeat.within) / repeat.total,
            unit: "%",
            samples: repeat.total,
          },
          {
            label: `${model.name}: decision-aware iterations per cell, median`,
            value: iterations.p50,
            unit: "iterations",
            samples: iterations.n,
            spread: { kind: "min-max", low: iterations.min, high: iterations.max },
          },
          {
            label: `${model.name}: interference (other processes' share of the profiled CPUs), median cell`,
            value: interference.p50,
            unit: "%",
            samples: interference.n,
            spread: { kind: "min-max", low: interference.min, high: interference.max },
          },
        );
        if (sequentialA && sequentialB && fixedB) {
          const seqNoise = summarize(cellDifferences(sequentialB, sequentialA));
          const intNoise = summarize(cellDifferences(fixedB, fixedA));
          const seqPlans = equivalence(sequentialA, sequentialB, cores, maxBatch);
          const intPlans = equivalence(fixedA, fixedB, cores, maxBatch);
          figures.push(
            {
              label: `${model.name}: noise floor |fixed − fixed| cell mean, one cell after another, median`,
              value: seqNoise.p50,
              unit: "%",
              samples: seqNoise.n,
              spread: { kind: "min-max", low: seqNoise.min, high: seqNoise.max },
            },
            {
              label: `${model.name}: noise floor |fixed − fixed| cell mean, interleaved, median`,
              value: intNoise.p50,
              unit: "%",
              samples: intNoise.n,
              spread: { kind: "min-max", low: intNoise.min, high: intNoise.max },
            },
            {
              label: `${model.name}: noise floor in plans, two fixed runs one cell after another, B equivalent`,
              value: (100 * seqPlans.within) / seqPlans.total,
              unit: "%",
              samples: seqPlans.total,
            },
            {
              label: `${model.name}: noise floor in plans, two fixed runs interleaved, B equivalent`,
              value: (100 * intPlans.within) / intPlans.total,
              unit: "%",
              samples: intPlans.total,
            },
          );
          notes.push(
            `${model.name}: two fixed runs differ by a median ${seqNoise.p50.toFixed(1)}% per cell (max ${seqNoise.max.toFixed(1)}%) one cell after another, ${intNoise.p50.toFixed(1)}% (max ${intNoise.max.toFixed(1)}%) interleaved.`,
          );
        }
        for (const key of fixedA.cells.keys()) {
          const f = fixedA.cells.get(key)!;
          const d1 = decisionA.cells.get(key)!;
          const d2 = decisionB.cells.get(key)!;
          rows.push([
            model.name,
            f.threads,
            f.batch,
            sequentialA?.cells.get(key)?.stats.meanMs ?? "",
            sequentialB?.cells.get(key)?.stats.meanMs ?? "",
            f.stats.meanMs,
            fixedB?.cells.get(key)?.stats.meanMs ?? "",
            d1.stats.meanMs,
            d1.stats.iterations,
            d1.stopReason,
            d2.stats.meanMs,
            d2.stats.iterations,
            Number(f.interferencePct.toFixed(1)),
          ]);
        }
        for (let i = 0; i < eqA.gaps.length; i++)
          planRows.push([
            model.name,
            i + 1,
            Number((eqA.gaps[i]! * 100).toFixed(2)),
            Number((eqB.gaps[i]! * 100).toFixed(2)),
            Number((repeat.gaps[i]! * 100).toFixed(2)),
          ]);
        const goals = [
          `speedup ${speedup.toFixed(2)}× (goal ≥ 3×: ${speedup >= 3 ? "met" : "missed"})`,
          `plan equivalence ${eqA.within + eqB.within}/${eqA.total + eqB.total} B (goal every B: ${eqA.within === eqA.total && eqB.within === eqB.total ? "met" : `missed, worst ${(100 * Math.max(eqA.worst, eqB.worst)).toFixed(1)}%`})`,
          `repeatability ${((100 * repeat.within) / repeat.total).toFixed(0)}% of B (goal ≥ 90%: ${repeat.within / repeat.total >= 0.9 ? "met" : "missed"})`,
        ];
        notes.push(
          `${model.name}: ${goals.join("; ")}. Decision-aware: ${decisionA.iterations} and ${decisionB.iterations} iterations (warm-up included) against ${fixedA.iterations} for the fixed rule.`,
        );
      }
      notes.push(
        `Grid: t ∈ {${threads.join(", ")}} on this host's ${allowedCpus.length} CPUs, B = 1…max batch planned on T = ${cores}; one pinned instance per thread count in its own process, all kept alive, one running at a time. Equivalence: under the judging profile, the other profile's plan is within 2% of the judge's own plan's predicted latency (repeatability judged under the first decision-aware profile). No cell was re-measured for interference here (each arm as measured); the figure is reported per cell.`,
      );
      return {
        figures,
        tables: [
          {
            title: "Cell estimates (ms): fixed one cell after another ×2, fixed interleaved ×2, decision-aware ×2",
            columns: [
              "model",
              "t",
              "b",
              "seq #1",
              "seq #2",
              "fixed #1",
              "fixed #2",
              "decision #1",
              "iterations",
              "stop",
              "decision #2",
              "iterations #2",
              "interference % (fixed #1)",
            ],
            rows,
          },
          {
            title:
              "Plan gaps per B (%): decision-aware plans under the fixed profile, and decision #2's under decision #1's",
            columns: ["model", "B", "decision #1 vs fixed", "decision #2 vs fixed", "decision #2 vs #1"],
            rows: planRows,
          },
        ],
        notes,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default bench;

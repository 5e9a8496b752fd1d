import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { replacePhase, summarizePipeline, type PipelinePhase } from "./mobile-pipeline";

const phases: PipelinePhase[] = [
  { name: "camera", durationMs: 8, energyMj: 0.08 },
  { name: "jpeg-decode", durationMs: 15, energyMj: 1.5 },
  { name: "resize-normalize", durationMs: 5, energyMj: 0.4 },
  { name: "npu-inference", durationMs: 12, energyMj: 0.8 },
  { name: "postprocess-ui", durationMs: 5, energyMj: 0.2 },
];

describe("Example 13.5 / Table 11 / TV-045: mobile pipeline", () => {
  it("TV-045: total 45 ms and 2.98 mJ; 22.2 FPS; 66.2 mW; 12.08M inferences per 10 Wh", () => {
    const s = summarizePipeline(phases, 10);
    expect(s.latencyMs).toBe(45);
    expect(s.energyMj.toFixed(2)).toBe("2.98");
    expect(s.framesPerS.toFixed(1)).toBe("22.2"); // 1000 / 45
    expect(s.powerMw.toFixed(1)).toBe("66.2"); // 2.98 mJ / 45 ms
    expect((s.inferencesPerBattery! / 1e6).toFixed(2)).toBe("12.08"); // 36,000 J / 2.98 mJ
  });

  it("TV-045: CPU fallback (45 ms, 4.2 mJ instead of 12 ms, 0.8 mJ) → 78 ms and 6.38 mJ", () => {
    const cpu = replacePhase(phases, "npu-inference", { name: "cpu-inference", durationMs: 45, energyMj: 4.2 });
    const s = summarizePipeline(cpu);
    expect(s.latencyMs).toBe(78);
    expect(s.energyMj.toFixed(2)).toBe("6.38");
    expect(s.inferencesPerBattery).toBeNull();
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => summarizePipeline([])).toThrow(PlanningInputError);
    expect(() => summarizePipeline([{ name: "x", durationMs: -1, energyMj: 0 }])).toThrow(/^phases\[0\]\.durationMs/);
    expect(() => summarizePipeline(phases, 0)).toThrow(/^batteryWh/);
    expect(() => replacePhase(phases, "gpu", phases[0]!)).toThrow(/^name/);
  });
});

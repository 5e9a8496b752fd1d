import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { memoryCap } from "./memory-cap";

describe("memory ceiling on batch size (§13.5.4 guidelines)", () => {
  it("16 GB device, 3 GB weights, 1 GB workspace, 0.25 GB activations per sample → floor(12 / 0.25) = 48", () => {
    const cap = memoryCap({
      memoryBytes: 16e9,
      weightBytes: 3e9,
      workspaceBytes: 1e9,
      activationBytesPerSample: 0.25e9,
    });
    expect(cap.freeBytes).toBe(12e9);
    expect(cap.maxBatch).toBe(48);
  });

  it("weights that fill memory leave batch 0 and report the negative remainder", () => {
    const cap = memoryCap({ memoryBytes: 8e9, weightBytes: 9e9, activationBytesPerSample: 1e6 });
    expect(cap.freeBytes).toBe(-1e9);
    expect(cap.maxBatch).toBe(0);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => memoryCap({ memoryBytes: 0, weightBytes: 1, activationBytesPerSample: 1 })).toThrow(
      PlanningInputError,
    );
    expect(() => memoryCap({ memoryBytes: 1e9, weightBytes: 1, activationBytesPerSample: 0 })).toThrow(
      /^activationBytesPerSample/,
    );
    expect(() => memoryCap({ memoryBytes: 1e9, weightBytes: -1, activationBytesPerSample: 1 })).toThrow(/^weightBytes/);
    expect(() => memoryCap({ memoryBytes: 1e300, weightBytes: 0, activationBytesPerSample: 1e-300 })).toThrow(
      /^activationBytesPerSample/,
    );
  });
});

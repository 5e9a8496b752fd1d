import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { syntheticTopology } from "../topology/synthetic-topology";
import { listCores } from "../topology/topology-queries";
import type { HostTopology } from "../topology/types";
import { allocate } from "./allocate";
import { AllocatorError } from "./errors";
import type { AllocationPlanItem, AllocatorOptions } from "./types";

// 2 sockets × 8 cores × SMT-2, numbered like Linux on x86: socket 0 = CPUs 0–7 (+ siblings 16–23),
// socket 1 = CPUs 8–15 (+ siblings 24–31); CPU k and CPU k + 16 share a core.
const big = syntheticTopology({ sockets: 2, coresPerNode: 8, threadsPerCore: 2 });
// 1 socket × 2 cores, no SMT: CPUs 0 and 1.
const small = syntheticTopology({ sockets: 1, coresPerNode: 2 });

const cpusOf = (topo: HostTopology, plan: AllocationPlanItem[], options?: AllocatorOptions) =>
  allocate(topo, plan, options).instances.map((i) => i.cpus);

function errorOf(run: () => unknown): AllocatorError {
  try {
    run();
  } catch (e) {
    if (e instanceof AllocatorError) return e;
    throw e;
  }
  throw new Error("expected an AllocatorError");
}

describe("allocate on 2 sockets × 8 cores × SMT-2", () => {
  it("interleave (default): ⟨4×2⟩ goes socket 0, 1, 0, 1, each instance on two adjacent cores", () => {
    expect(cpusOf(big, [{ count: 4, threads: 2, batch: 4 }])).toEqual([
      [0, 1],
      [8, 9],
      [2, 3],
      [10, 11],
    ]);
  });

  it("sequential: ⟨4×2⟩ fills socket 0 first: 0-1, 2-3, 4-5, 6-7", () => {
    expect(cpusOf(big, [{ count: 4, threads: 2, batch: 4 }], { order: "sequential" })).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 7],
    ]);
  });

  it("smt pair: ⟨2×4⟩ gives each of the 4 ORT threads a core's two siblings (k, k+16)", () => {
    const [a, b] = allocate(big, [{ count: 2, threads: 4, batch: 8 }], { smt: "pair" }).instances;
    expect(a!.coreCpus).toEqual([
      [0, 16],
      [1, 17],
      [2, 18],
      [3, 19],
    ]);
    expect(a!.cpus).toEqual([0, 1, 2, 3, 16, 17, 18, 19]);
    expect(b!.cpus).toEqual([8, 9, 10, 11, 24, 25, 26, 27]);
    expect(a!.threads).toBe(4); // still 4 ORT threads, on 8 logical CPUs
  });

  it("smt exclude: one CPU per core, the lowest sibling; the others are reported idle", () => {
    const result = allocate(big, [{ count: 4, threads: 2, batch: 4 }]);
    expect(result.instances[0]!.coreCpus).toEqual([[0], [1]]);
    // 32 CPUs − 8 used = 24 idle: the 8 unused cores' CPUs (8 × 2 = 16) and the 8 used cores' siblings.
    expect(result.idleCpus).toHaveLength(24);
    expect(result.idleCpus).toContain(16);
    expect(result).toMatchObject({ coresInBudget: 16, coresUsed: 8 });
  });

  it("mixed plan ⟨1×8⟩ + ⟨2×4⟩: largest first, so 8 cores take socket 0 and the two 4s share socket 1", () => {
    const result = allocate(big, [
      { count: 1, threads: 8, batch: 16 },
      { count: 2, threads: 4, batch: 8 },
    ]);
    expect(result.instances.map((i) => [i.item, i.batch, i.sockets, i.cpus])).toEqual([
      [0, 16, [0], [0, 1, 2, 3, 4, 5, 6, 7]],
      [1, 8, [1], [8, 9, 10, 11]],
      [1, 8, [1], [12, 13, 14, 15]],
    ]);
    expect(result.instances.every((i) => i.spans === "none")).toBe(true);
  });

  it('cannot fit: "4 instances × 5 cores need 20 physical cores; the budget has 16"', () => {
    const err = errorOf(() => allocate(big, [{ count: 4, threads: 5, batch: 1 }]));
    expect(err).toMatchObject({ code: "cannot-fit", parameter: "plan" });
    expect(err.message).toBe("4 instances × 5 cores need 20 physical cores; the budget has 16");
  });

  it("⟨3×5⟩ (15 ≤ 16 cores) fits only if one instance crosses sockets: refused by default, says why", () => {
    const err = errorOf(() => allocate(big, [{ count: 3, threads: 5, batch: 1 }]));
    expect(err).toMatchObject({ code: "cannot-fit-locally", parameter: "spanning" });
    expect(err.message).toContain("free cores per NUMA node: 8, 8");
    // Spanning NUMA nodes inside a socket does not help: each socket is one node.
    expect(errorOf(() => allocate(big, [{ count: 3, threads: 5, batch: 1 }], { spanning: "numa-nodes" })).code).toBe(
      "cannot-fit-locally",
    );
  });

  it('⟨3×5⟩ with spanning "sockets": two instances stay socket-local, only the third spans (3 + 2 leftover cores)', () => {
    const result = allocate(big, [{ count: 3, threads: 5, batch: 1 }], { spanning: "sockets" });
    // Instance 0 takes 0–4 on socket 0, instance 1 takes 8–12 on socket 1; 5–7 and 13–15 are left for instance 2.
    expect(result.instances.map((i) => [i.cpus, i.spans])).toEqual([
      [[0, 1, 2, 3, 4], "none"],
      [[8, 9, 10, 11, 12], "none"],
      [[5, 6, 7, 13, 14], "sockets"],
    ]);
  });

  it("a budget of socket 1's CPUs keeps every instance there; a core cap is what the error reports", () => {
    const budget = { cpus: [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31] };
    const result = allocate(big, [{ count: 2, threads: 4, batch: 2 }], { budget });
    expect(result.instances.map((i) => i.sockets)).toEqual([[1], [1]]);
    expect(result.coresInBudget).toBe(8);
    expect(errorOf(() => allocate(big, [{ count: 2, threads: 4, batch: 2 }], { budget: { cores: 6 } })).message).toBe(
      "2 instances × 4 cores need 8 physical cores; the budget has 6",
    );
  });

  it("rejects bad input with typed errors that name the parameter", () => {
    const plan = [{ count: 1, threads: 1, batch: 1 }];
    const cases: Array<[() => unknown, string, string]> = [
      [() => allocate(big, []), "invalid-plan", "plan"],
      [() => allocate(big, [{ count: 1, threads: 0, batch: 1 }]), "invalid-plan", "plan[0].threads"],
      [() => allocate(big, [{ count: 1.5, threads: 1, batch: 1 }]), "invalid-plan", "plan[0].count"],
      [() => allocate(big, [{ count: 1, threads: 1, batch: Number.NaN }]), "invalid-plan", "plan[0].batch"],
      [() => allocate(big, plan, { order: "random" as never }), "invalid-option", "order"],
      [() => allocate(big, plan, { smt: "all" as never }), "invalid-option", "smt"],
      [() => allocate(big, plan, { spanning: "yes" as never }), "invalid-option", "spanning"],
      [() => allocate(big, plan, { budget: { cpus: [99] } }), "invalid-budget", "budget.cpus"],
      [() => allocate(big, plan, { budget: { cores: 0 } }), "invalid-budget", "budget.cores"],
    ];
    for (const [run, code, param] of cases) expect(errorOf(run)).toMatchObject({ code, parameter: param });
  });
});

describe("allocate across NUMA nodes inside a socket", () => {
  // 1 socket × 2 NUMA nodes × 4 cores: node 0 = CPUs 0–3, node 1 = CPUs 4–7.
  const twoNodes = syntheticTopology({ sockets: 1, nodesPerSocket: 2, coresPerNode: 4 });
  const plan = [
    { count: 1, threads: 6, batch: 6 },
    { count: 1, threads: 2, batch: 2 },
  ];

  it("⟨1×6⟩ + ⟨1×2⟩ is refused by default: 6 cores exceed either 4-core node", () => {
    expect(errorOf(() => allocate(twoNodes, plan)).message).toBe(
      "1 instance × 6 cores + 1 instance × 2 cores need 8 physical cores and the budget has 8, but no placement keeps " +
        "every instance inside one NUMA node (free cores per NUMA node: 4, 4); an instance of 6 cores is larger than " +
        'any NUMA node (at most 4); allow spanning ("numa-nodes" or "sockets") or use fewer threads per instance',
    );
  });

  it('with spanning "numa-nodes" only the 6-core instance stretches: 4 cores of node 0 + 2 of node 1', () => {
    // The 2-core instance is node-local and takes the front of node 1 (4, 5); the 6-core one gets 0–3 and 6–7.
    const result = allocate(twoNodes, plan, { spanning: "numa-nodes" });
    expect(result.instances.map((i) => [i.cpus, i.nodes, i.spans])).toEqual([
      [[0, 1, 2, 3, 6, 7], [0, 1], "numa-nodes"],
      [[4, 5], [1], "none"],
    ]);
  });

  it("3 sockets × 2 nodes × 3 cores, ⟨4×3⟩ + ⟨3×2⟩: one instance must stretch over nodes, none over sockets", () => {
    // Four 3s fill four nodes; the three 2s share the last two 3-core nodes (one socket): one of them must stretch.
    const topo = syntheticTopology({ sockets: 3, nodesPerSocket: 2, coresPerNode: 3 });
    for (const order of ["interleave", "sequential"] as const) {
      const spans = allocate(
        topo,
        [
          { count: 4, threads: 3, batch: 1 },
          { count: 3, threads: 2, batch: 1 },
        ],
        { spanning: "sockets", order },
      ).instances.map((i) => i.spans);
      expect(spans.filter((s) => s === "numa-nodes")).toHaveLength(1);
      expect(spans.filter((s) => s === "sockets")).toHaveLength(0);
    }
  });
});

describe("allocate on 1 socket × 2 cores", () => {
  it("⟨1×2⟩ → [0,1]; ⟨2×1⟩ → [0] and [1]; ⟨1×3⟩ cannot fit", () => {
    expect(cpusOf(small, [{ count: 1, threads: 2, batch: 8 }])).toEqual([[0, 1]]);
    expect(cpusOf(small, [{ count: 2, threads: 1, batch: 4 }])).toEqual([[0], [1]]);
    expect(errorOf(() => allocate(small, [{ count: 1, threads: 3, batch: 1 }])).message).toBe(
      "1 instance × 3 cores needs 3 physical cores; the budget has 2",
    );
  });
});

/** Ground truth for "could every instance stay inside one NUMA node": tries every assignment. */
function localFitExists(sizes: number[], nodeSizes: number[]): boolean {
  const free = [...nodeSizes];
  const go = (k: number): boolean =>
    k === sizes.length ||
    free.some((f, d) => {
      if (f < sizes[k]!) return false;
      free[d] = f - sizes[k]!;
      const ok = go(k + 1);
      free[d] = f;
      return ok;
    });
  return go(0);
}

describe("allocate invariants (property, brute-force locality check)", () => {
  const arbitraryCase = fc.record({
    sockets: fc.integer({ min: 1, max: 3 }),
    nodesPerSocket: fc.integer({ min: 1, max: 2 }),
    coresPerNode: fc.integer({ min: 1, max: 5 }),
    threadsPerCore: fc.integer({ min: 1, max: 2 }),
    plan: fc.array(
      fc.record({
        count: fc.integer({ min: 1, max: 4 }),
        threads: fc.integer({ min: 1, max: 6 }),
        batch: fc.constant(1),
      }),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    order: fc.constantFrom("sequential" as const, "interleave" as const),
    smt: fc.constantFrom("exclude" as const, "pair" as const),
    spanning: fc.constantFrom("never" as const, "numa-nodes" as const, "sockets" as const),
  });

  it("each CPU at most once, t cores per instance, no needless spanning of nodes or sockets, errors only when brute force agrees", () => {
    fc.assert(
      fc.property(arbitraryCase, ({ plan, order, smt, spanning, ...spec }) => {
        const topo = syntheticTopology(spec);
        const total = listCores(topo).length;
        const sizes = plan.flatMap((p) => Array.from({ length: p.count }, () => p.threads));
        const demand = sizes.reduce((a, b) => a + b, 0);
        const nodeSizes = topo.sockets.flatMap((s) => s.nodes.map((n) => n.cores.length));
        const socketSizes = topo.sockets.map((s) => s.nodes.reduce((n, node) => n + node.cores.length, 0));
        const canStayLocal = localFitExists(sizes, nodeSizes);
        let result;
        try {
          result = allocate(topo, plan, { order, smt, spanning });
        } catch (e) {
          expect(e).toBeInstanceOf(AllocatorError);
          const code = (e as AllocatorError).code;
          if (demand > total) {
            expect(code).toBe("cannot-fit");
            return;
          }
          expect(code).toBe("cannot-fit-locally");
          expect(spanning).not.toBe("sockets"); // with sockets allowed, Σt ≤ cores always fits
          expect(canStayLocal).toBe(false);
          if (spanning === "numa-nodes") expect(localFitExists(sizes, socketSizes)).toBe(false);
          return;
        }
        expect(demand).toBeLessThanOrEqual(total);
        const seen = new Set<number>();
        for (const inst of result.instances) {
          expect(inst.coreCpus).toHaveLength(inst.threads);
          for (const cpu of inst.cpus) {
            expect(seen.has(cpu)).toBe(false);
            seen.add(cpu);
          }
          expect(inst.coreCpus.every((c) => c.length === (smt === "pair" ? spec.threadsPerCore : 1))).toBe(true);
          if (spanning === "never") expect(inst.spans).toBe("none");
          if (spanning === "numa-nodes") expect(inst.spans).not.toBe("sockets");
        }
        if (canStayLocal) expect(result.instances.every((i) => i.spans === "none")).toBe(true);
        if (localFitExists(sizes, socketSizes)) expect(result.instances.every((i) => i.spans !== "sockets")).toBe(true);
        expect(result.instances.map((i) => i.threads)).toEqual(sizes);
      }),
      { numRuns: 200 },
    );
  });
});

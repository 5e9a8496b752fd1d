/** What the optimizer is asked: serve a batch of `batch` samples on `cores` cores. */
export interface OptimizeRequest {
  /** T: cores (= intra-op threads) available to this model. */
  readonly cores: number;
  /** B: samples per batch, any positive integer. */
  readonly batch: number;
  /** true: Σt = T exactly, as the authors' code does; false (default): Σt ≤ T and the rest are idle. */
  readonly exactCores?: boolean;
  /** ε ≥ 0: plans within L*·(1+ε) count as tied, so the simplest of them wins. Default 0. */
  readonly tieTolerance?: number;
}

/** ⟨i, t, b⟩: `count` concurrent instances, each with `threads` threads on `batch` samples. */
export type PlanGroup = {
  readonly count: number;
  readonly threads: number;
  readonly batch: number;
  /** L[threads][batch] from the profile: how long each of these instances takes. */
  readonly latencyMs: number;
};

export type BaselineResult =
  | {
      readonly available: true;
      readonly instances: readonly PlanGroup[];
      readonly latencyMs: number;
      readonly throughputPerS: number;
      /** Baseline latency ÷ the optimum's latency: > 1 means the optimum is faster. */
      readonly speedup: number;
    }
  | {
      readonly available: false;
      /** The [threads, batch] cells the profile lacks. */
      readonly missing: ReadonlyArray<readonly [number, number]>;
    };

export type Baselines = {
  /** ⟨1, T, B⟩: one instance with every thread (PyTorch, TorchServe and ONNX Runtime's default). */
  readonly allThreads: BaselineResult;
  /** k = min(B, T) one-thread instances on batches ⌈B/k⌉ or ⌊B/k⌋. */
  readonly oneThread: BaselineResult;
};

export interface OptimizedPlan {
  readonly kind: "plan";
  readonly cores: number;
  readonly batch: number;
  readonly exactCores: boolean;
  /** Predicted batch latency: the slowest instance's L[t][b] (makespan). */
  readonly latencyMs: number;
  /** batch ÷ latency, in samples per second. */
  readonly throughputPerS: number;
  readonly idleCores: number;
  /** Sorted by (threads, batch). */
  readonly instances: readonly PlanGroup[];
  readonly baselines: Baselines;
}

export interface InfeasiblePlan {
  readonly kind: "infeasible";
  readonly reason: string;
}

export type OptimizeResult = OptimizedPlan | InfeasiblePlan;

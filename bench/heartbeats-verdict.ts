// Judging one step of the heartbeat load test (N simulated agents, one heartbeat each per interval) and saying what
// breaks first. Pure: the benchmark measures, this decides.

export interface HeartbeatStep {
  agents: number;
  /** Heartbeats per second the agents meant to send: agents / interval. */
  intendedPerS: number;
  /** Heartbeats answered 200 per second in the measured window. */
  achievedPerS: number;
  sent: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU of the control-plane process as a fraction of one core (Node serves requests on one thread). */
  controlPlaneCpu: number;
  /** CPU of every PostgreSQL process, in cores. */
  postgresCpu: number;
  /** Logical CPUs of the machine (the database and the control plane share them here). */
  machineCpus: number;
}

export interface HeartbeatLimits {
  p99Ms: number;
  failedFraction: number;
  /** Achieved / intended below this: heartbeats are falling behind. */
  achievedFraction: number;
  /** Fraction of one core for the control plane; of the machine's CPUs for the database. */
  cpuFraction: number;
}

/** An agent is offline after 15 s without a heartbeat (AGENT_OFFLINE_AFTER_MS): a p99 of 1 s is far inside that. */
export const DEFAULT_LIMITS: HeartbeatLimits = {
  p99Ms: 1000,
  failedFraction: 0.01,
  achievedFraction: 0.95,
  cpuFraction: 0.9,
};

export class HeartbeatStepError extends Error {
  readonly code = "invalid-step";
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}

const FIELDS = [
  "agents",
  "intendedPerS",
  "achievedPerS",
  "sent",
  "failed",
  "p50Ms",
  "p99Ms",
  "controlPlaneCpu",
  "postgresCpu",
  "machineCpus",
] as const;

function check(step: HeartbeatStep): void {
  for (const key of FIELDS) {
    const value = step[key];
    if (!Number.isFinite(value) || value < 0)
      throw new HeartbeatStepError(key, `must be a finite number ≥ 0, got ${value}`);
  }
  if (step.intendedPerS === 0) throw new HeartbeatStepError("intendedPerS", "must be positive");
  if (step.machineCpus === 0) throw new HeartbeatStepError("machineCpus", "must be positive");
}

/** Saturated, not merely slow: heartbeats are being lost or falling far behind. The load test stops there. */
export function saturated(step: HeartbeatStep): boolean {
  check(step);
  return (step.sent > 0 && step.failed / step.sent > 0.05) || step.achievedPerS < 0.8 * step.intendedPerS;
}

/** Every limit the step crossed, as short reasons (empty: healthy). */
export function brokenBy(step: HeartbeatStep, limits: HeartbeatLimits = DEFAULT_LIMITS): string[] {
  check(step);
  const reasons: string[] = [];
  if (step.p99Ms > limits.p99Ms) reasons.push(`heartbeat p99 ${step.p99Ms.toFixed(0)} ms > ${limits.p99Ms} ms`);
  if (step.sent > 0 && step.failed / step.sent > limits.failedFraction)
    reasons.push(`${step.failed} of ${step.sent} heartbeats failed`);
  if (step.achievedPerS < limits.achievedFraction * step.intendedPerS) {
    reasons.push(`${step.achievedPerS.toFixed(1)} heartbeats/s answered of ${step.intendedPerS.toFixed(1)} intended`);
  }
  if (step.controlPlaneCpu > limits.cpuFraction)
    reasons.push(`control plane at ${(step.controlPlaneCpu * 100).toFixed(0)}% of a core`);
  if (step.postgresCpu > limits.cpuFraction * step.machineCpus)
    reasons.push(`PostgreSQL at ${step.postgresCpu.toFixed(2)} of ${step.machineCpus} CPUs`);
  return reasons;
}

export interface Capacity {
  /** Heartbeats per second each resource would sustain at the CPU limit, extrapolated linearly from the step. */
  controlPlanePerS: number;
  postgresPerS: number;
  /** The resource that runs out first, and at how many agents (at the heartbeat interval). */
  bottleneck: "control plane" | "PostgreSQL";
  agents: number;
}

/**
 * Linear extrapolation from one healthy step: a resource that used `u` (cores) for `r` heartbeats/s sustains
 * r × limit / u. Good for sizing to the next order of magnitude, not beyond (queues grow non-linearly near 100%).
 */
export function extrapolateCapacity(
  step: HeartbeatStep,
  intervalMs: number,
  limits: HeartbeatLimits = DEFAULT_LIMITS,
): Capacity {
  check(step);
  if (!(intervalMs > 0) || !Number.isFinite(intervalMs))
    throw new HeartbeatStepError("intervalMs", `must be positive, got ${intervalMs}`);
  if (step.achievedPerS === 0)
    throw new HeartbeatStepError("achievedPerS", "no heartbeat answered: nothing to extrapolate from");
  const perCore = (cores: number, budget: number) =>
    cores > 0 ? (step.achievedPerS * budget) / cores : Number.MAX_SAFE_INTEGER;
  const controlPlanePerS = perCore(step.controlPlaneCpu, limits.cpuFraction);
  const postgresPerS = perCore(step.postgresCpu, limits.cpuFraction * step.machineCpus);
  const bottleneck = controlPlanePerS <= postgresPerS ? "control plane" : "PostgreSQL";
  const perS = Math.min(controlPlanePerS, postgresPerS);
  return { controlPlanePerS, postgresPerS, bottleneck, agents: Math.floor((perS * intervalMs) / 1000) };
}

/** What a step's machine was busy with, in cores: the three parts of the test and everything else on it. */
export interface MachineLoad {
  achievedPerS: number;
  controlPlaneCpu: number;
  postgresCpu: number;
  /** The simulated agents' own process. */
  clientCpu: number;
  /** Every other process on the machine (not scaled: it does not grow with the agents). */
  othersCpu: number;
  machineCpus: number;
}

/**
 * The most of the machine a step may be projected to need before the load test stops growing: past it the control
 * plane, PostgreSQL and the simulated agents queue for the same two cores, and latency measures the shared machine
 * (the usual 80 % of capacity planning: on two cores at 80 % busy a request that needs a core finds both taken about
 * two times in three). The projection comes from one measured step on a shared machine, so it moves with the
 * neighbours' load: the notes say where a run stopped and why.
 */
export const HOLD_LIMIT = 0.8;

/**
 * The machine's busy fraction at `agents`, projected from a measured step: the control plane's, PostgreSQL's and the
 * simulator's CPU per heartbeat times the new heartbeat rate, plus the others' CPU as it was.
 */
export function projectedMachineBusy(step: MachineLoad, agents: number, intervalMs: number): number {
  for (const key of ["achievedPerS", "controlPlaneCpu", "postgresCpu", "clientCpu", "othersCpu"] as const) {
    const value = step[key];
    if (!Number.isFinite(value) || value < 0)
      throw new HeartbeatStepError(key, `must be a finite number ≥ 0, got ${value}`);
  }
  if (!(step.machineCpus > 0)) throw new HeartbeatStepError("machineCpus", "must be positive");
  if (!(step.achievedPerS > 0))
    throw new HeartbeatStepError("achievedPerS", "no heartbeat answered: nothing to project from");
  if (!(intervalMs > 0) || !Number.isFinite(intervalMs))
    throw new HeartbeatStepError("intervalMs", `must be positive, got ${intervalMs}`);
  const coresPerHeartbeat = (step.controlPlaneCpu + step.postgresCpu + step.clientCpu) / step.achievedPerS;
  const perS = (agents * 1000) / intervalMs;
  return (coresPerHeartbeat * perS + step.othersCpu) / step.machineCpus;
}

// HTTP to the control plane's agent API with the agent's bearer token; every response validated by the contracts.
import type { z } from "zod";
import {
  AGENT_JOB_KINDS,
  claimedJobSchema,
  type LoadgenReportJson,
  type PlanTrialResult,
  type ProfileCellReport,
} from "@packrat/contracts/agent-jobs";
import {
  AGENT_API_PREFIX,
  AGENT_ERROR_CODES,
  agentErrorSchema,
  desiredStateSchema,
  heartbeatResponseSchema,
  registerResponseSchema,
  type AgentErrorBody,
  acceptedResponseSchema,
  type DesiredState,
  type EventsRequest,
  type HeartbeatRequest,
  type MetricsRequest,
  type RegisterRequest,
  type RegisterResponse,
} from "@packrat/contracts/agent-protocol";

export class ControlPlaneError extends Error {
  /** The error body as the contract reads it (code, parameter, allowed); undefined when the answer had none (a proxy's page). */
  readonly body: AgentErrorBody | undefined;
  constructor(
    readonly status: number,
    message: string,
    body?: AgentErrorBody,
  ) {
    super(message);
    this.name = "ControlPlaneError";
    this.body = body;
  }
  /** The control plane's domain code: what the agent acts on, never the message. */
  get code(): string | undefined {
    return this.body?.code;
  }
  /** Refusals that retrying will not fix (bad token, wrong protocol, token bound to another host). */
  get fatal(): boolean {
    return this.status === 400 || this.status === 401 || this.status === 403 || this.status === 409;
  }
}

export class ControlPlaneClient {
  constructor(
    readonly baseUrl: string,
    public token: string,
  ) {}

  private async call<T>(
    method: string,
    path: string,
    schema: z.ZodType<T> | undefined,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<{ status: number; data?: T }> {
    const response = await fetch(`${this.baseUrl.replace(/\/$/, "")}${AGENT_API_PREFIX}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal,
    });
    if (response.status === 204) return { status: 204 };
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const body = agentErrorSchema.safeParse(json);
      const message = body.success ? body.data.error.message : text.slice(0, 200);
      throw new ControlPlaneError(
        response.status,
        `${method} ${path}: ${response.status} ${message}`,
        body.success ? body.data.error : undefined,
      );
    }
    return { status: response.status, data: schema ? schema.parse(json) : (json as T) };
  }

  async register(request: RegisterRequest): Promise<RegisterResponse> {
    return (await this.call("POST", "/register", registerResponseSchema, request)).data!;
  }

  async heartbeat(request: HeartbeatRequest): Promise<void> {
    await this.call("POST", "/heartbeat", heartbeatResponseSchema, request);
  }

  async events(request: EventsRequest): Promise<void> {
    await this.call("POST", "/events", acceptedResponseSchema, request);
  }

  async metrics(request: MetricsRequest): Promise<void> {
    await this.call("POST", "/metrics", acceptedResponseSchema, request);
  }

  /** Long-poll: resolves with a newer desired state, or undefined when the hold expired without one. */
  async desired(after: number, signal?: AbortSignal): Promise<DesiredState | undefined> {
    const result = await this.call("GET", `/desired?after=${after}`, desiredStateSchema, undefined, signal);
    return result.data;
  }

  /** Job kinds this agent runs, narrowed once to those an older control plane knows (it refuses unknown kinds). */
  private jobKinds: string[] = [...AGENT_JOB_KINDS];

  /** Long-poll: the next job claimed for this agent, or null when none came within the hold. `kinds` tells the
   *  control plane which jobs this agent runs (an older agent, asking without it, gets profiling jobs only). */
  async nextJob(signal?: AbortSignal) {
    try {
      return (
        await this.call("GET", `/jobs/next?kinds=${this.jobKinds.join(",")}`, claimedJobSchema, undefined, signal)
      ).data!.job;
    } catch (error) {
      // A control plane that runs fewer kinds than this agent (an older one) refuses the others with unknown_job_kind
      // and lists those it runs in the body.
      const known =
        error instanceof ControlPlaneError && error.code === AGENT_ERROR_CODES.unknownJobKind
          ? error.body?.allowed
          : undefined;
      const narrowed = known ? this.jobKinds.filter((k) => known.includes(k)) : [];
      if (narrowed.length === 0 || narrowed.length === this.jobKinds.length) throw error;
      this.jobKinds = narrowed;
      return null; // the loop polls again at once, with the kinds the control plane knows
    }
  }

  async postCells(
    jobId: string,
    cells: ProfileCellReport[],
    progress?: { round: number; measuring: number },
  ): Promise<void> {
    await this.call("POST", `/jobs/${encodeURIComponent(jobId)}/cells`, undefined, {
      cells,
      ...(progress ? { progress } : {}),
    });
  }

  /** A load test's report (the job is then done); 409 when the job was cancelled meanwhile. */
  async postLoadTestResult(
    jobId: string,
    report: LoadgenReportJson,
    generationAtEnd: number | undefined,
  ): Promise<void> {
    await this.call("POST", `/jobs/${encodeURIComponent(jobId)}/result`, undefined, {
      report,
      ...(generationAtEnd !== undefined ? { generationAtEnd } : {}),
    });
  }

  /** A plan trial's round; 409 once the trial was cancelled (the agent stops it). */
  async postTrialProgress(jobId: string, round: number, rounds: number): Promise<void> {
    await this.call("POST", `/jobs/${encodeURIComponent(jobId)}/rounds`, undefined, { round, rounds });
  }

  /** A plan trial's measurements (the job is then done). */
  async postTrialResult(jobId: string, result: PlanTrialResult): Promise<void> {
    await this.call("POST", `/jobs/${encodeURIComponent(jobId)}/trial`, undefined, result);
  }

  async finishJob(jobId: string, outcome: "done" | "failed", error?: string): Promise<void> {
    await this.call("POST", `/jobs/${encodeURIComponent(jobId)}/finish`, undefined, {
      outcome,
      ...(error ? { error: error.slice(0, 2000) } : {}),
    });
  }

  artifact(sha256: string): Promise<Response> {
    return fetch(`${this.baseUrl.replace(/\/$/, "")}${AGENT_API_PREFIX}/artifacts/${sha256}`, {
      headers: { authorization: `Bearer ${this.token}` },
    });
  }
}

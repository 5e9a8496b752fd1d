// The CLI's commands over a control plane, with a personal API token: log in, register models, deploy, profile,
// optimize, propose, decide and export plans. Results on stdout (--json: the server's answer as JSON), progress and
// warnings on stderr, and an exit code a script can branch on (REMOTE_EXIT).
import { createReadStream, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { exportModelName } from "../core/export/plan-export";
import { ControlPlaneClient, ControlPlaneError, readConfig, writeConfig, type CliConfig } from "./control-plane-client";

/** Exit codes beyond optimize's (0 ok, 1 usage, 2 bad file, 3 infeasible). */
export const REMOTE_EXIT = {
  ok: 0,
  usage: 1,
  badFile: 2,
  infeasible: 3,
  /** Not logged in, or the token was refused: unknown, revoked, expired, or its role may not do this. */
  auth: 4,
  /** The control plane refused the request (not found, invalid input, conflict). */
  refused: 5,
  /** plans export --strict: the format cannot express the plan. */
  notExpressible: 6,
  /** A --wait ended in failure (the profile failed, the deployment or the applied proposal failed). */
  failed: 7,
  /** The control plane could not be reached or answered 5xx. */
  unavailable: 8,
} as const;

export const REMOTE_COMMANDS = [
  "login",
  "whoami",
  "models",
  "agents",
  "deploy",
  "profile",
  "propose",
  "approve",
  "reject",
  "plans",
] as const;

export const REMOTE_USAGE = `Commands over a control plane (a personal API token from your account page):
  packrat login --url URL --token-file FILE           check the token and store both (config file mode 0600);
                                                      the token may come from PACKRAT_TOKEN instead (never put it
                                                      in the command line: every user of the host can read that)
  packrat whoami
  packrat models list [--search TEXT]
  packrat models upload FILE.onnx --name NAME [--description TEXT] [--dims sequence=128,…] [--batch-axes t=1,…]
  packrat models import URL --name NAME [--description TEXT]
  packrat agents list
  packrat deploy --agent AGENT_ID|HOST --version VERSION_ID [--cpus 0,1,2] [--wait]
  packrat profile start --deployment ID [--threads 1,2,4] [--batches 1,2,4,8] [--max-batch N]
  packrat profile wait PROFILE_ID
  packrat optimize --deployment ID --profile PROFILE_ID --batch B [--timeout-ms MS]
  packrat propose --deployment ID --profile PROFILE_ID --batch B --reason TEXT [--timeout-ms MS] [--trial]
  packrat approve PROPOSAL_ID [--comment TEXT] [--wait]
  packrat reject PROPOSAL_ID --comment TEXT
  packrat plans export (--proposal ID | --deployment ID) [--format triton|ovms|kserve] [--out DIR]
                       [--storage-uri URI] [--strict [--allow pinning,…]]

  --json on any command prints the control plane's answer as JSON on stdout; progress goes to stderr.
  PACKRAT_URL and PACKRAT_TOKEN override the stored login; PACKRAT_CONFIG moves the config file.

Exit codes: 0 done, 1 bad arguments, 2 unreadable file, 3 infeasible (no plan), 4 not logged in or the token was
refused (unknown, revoked, expired, or its role may not do this), 5 the control plane refused the request, 6 the
export cannot express the plan (--strict), 7 a --wait ended in failure, 8 the control plane is unreachable or failed.`;

export interface RemoteIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout(text: string): void;
  stderr(text: string): void;
  fetch?: typeof fetch;
  /** How long --wait polls sleep between calls (tests shorten it). */
  pollMs?: number;
}

class UsageError extends Error {}

const list = (text: string | undefined, what: string): number[] | undefined => {
  if (text === undefined) return undefined;
  const values = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (values.length === 0 || values.some((v) => !/^\d+$/.test(v)))
    throw new UsageError(`${what}: expected integers separated by commas, got "${text}"`);
  return values.map(Number);
};
const integer = (text: string | undefined, what: string): number => {
  if (text === undefined || !/^\s*\d+\s*$/.test(text) || Number(text) < 1)
    throw new UsageError(`${what}: must be a positive integer`);
  return Number(text);
};
const decimal = (text: string | undefined, what: string): number | undefined => {
  if (text === undefined) return undefined;
  if (!/^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(text)) throw new UsageError(`${what}: must be a non-negative number`);
  return Number(text);
};
const required = (value: string | undefined, what: string): string => {
  if (value === undefined || value === "") throw new UsageError(`missing ${what}`);
  return value;
};

const OPTIONS = {
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
  url: { type: "string" },
  token: { type: "string" },
  "token-file": { type: "string" },
  search: { type: "string" },
  name: { type: "string" },
  description: { type: "string" },
  dims: { type: "string" },
  "batch-axes": { type: "string" },
  agent: { type: "string" },
  version: { type: "string" },
  cpus: { type: "string" },
  wait: { type: "boolean", default: false },
  deployment: { type: "string" },
  threads: { type: "string" },
  batches: { type: "string" },
  "max-batch": { type: "string" },
  profile: { type: "string" },
  batch: { type: "string" },
  "timeout-ms": { type: "string" },
  reason: { type: "string" },
  trial: { type: "boolean", default: false },
  comment: { type: "string" },
  proposal: { type: "string" },
  format: { type: "string" },
  out: { type: "string" },
  "storage-uri": { type: "string" },
  strict: { type: "boolean", default: false },
  allow: { type: "string" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

/** Whether argv names a command this module runs (optimize only with --deployment; without, it is the offline one). */
export function isRemoteCommand(argv: readonly string[]): boolean {
  const first = argv.find((a) => !a.startsWith("-"));
  if (first === "optimize") return argv.some((a) => a === "--deployment" || a.startsWith("--deployment="));
  return (REMOTE_COMMANDS as readonly string[]).includes(first ?? "");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Context {
  io: RemoteIo;
  values: Values;
  args: string[];
  client: () => ControlPlaneClient;
  print: (human: string, json: unknown) => void;
  progress: (line: string) => void;
}

export async function runRemote(argv: readonly string[], io: RemoteIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS });
  } catch (error) {
    io.stderr(`packrat: ${(error as Error).message}\n\n${REMOTE_USAGE}\n`);
    return REMOTE_EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${REMOTE_USAGE}\n`);
    return REMOTE_EXIT.ok;
  }
  let config: CliConfig | null = null;
  const ctx: Context = {
    io,
    values,
    args: positionals,
    client: () => {
      config ??= readConfig(io.env);
      if (!config)
        throw new ControlPlaneError(
          "auth",
          "not logged in: run packrat login --url URL --token-file FILE (or set PACKRAT_URL and PACKRAT_TOKEN)",
          0,
        );
      return new ControlPlaneClient(config, io.fetch);
    },
    print: (human, json) => io.stdout(values.json ? `${JSON.stringify(json, null, 2)}\n` : `${human}\n`),
    progress: (line) => io.stderr(`${line}\n`),
  };
  try {
    return await dispatch(ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`packrat: ${error.message}\n\n${REMOTE_USAGE}\n`);
      return REMOTE_EXIT.usage;
    }
    if (error instanceof ControlPlaneError) {
      io.stderr(`packrat: ${error.message}\n`);
      return {
        auth: REMOTE_EXIT.auth,
        refused: REMOTE_EXIT.refused,
        precondition: REMOTE_EXIT.refused,
        unavailable: REMOTE_EXIT.unavailable,
      }[error.failure];
    }
    throw error;
  }
}

async function dispatch(ctx: Context): Promise<number> {
  const [command, sub, ...rest] = ctx.args;
  switch (command) {
    case "login":
      return login(ctx);
    case "whoami":
      return whoami(ctx);
    case "models":
      if (sub === "list") return modelsList(ctx);
      if (sub === "upload") return modelsUpload(ctx, rest[0]);
      if (sub === "import") return modelsImport(ctx, rest[0]);
      throw new UsageError(`models: expected list, upload or import, got ${sub ?? "nothing"}`);
    case "agents":
      if (sub === "list") return agentsList(ctx);
      throw new UsageError(`agents: expected list, got ${sub ?? "nothing"}`);
    case "deploy":
      return deploy(ctx);
    case "profile":
      if (sub === "start") return profileStart(ctx);
      if (sub === "wait") return profileWait(ctx, rest[0]);
      throw new UsageError(`profile: expected start or wait, got ${sub ?? "nothing"}`);
    case "optimize":
      return optimizeRemote(ctx);
    case "propose":
      return propose(ctx);
    case "approve":
      return decide(ctx, "approve", sub);
    case "reject":
      return decide(ctx, "reject", sub);
    case "plans":
      if (sub === "export") return plansExport(ctx);
      throw new UsageError(`plans: expected export, got ${sub ?? "nothing"}`);
    default:
      throw new UsageError(`unknown command ${command ?? ""}`);
  }
}

interface Me {
  id: string;
  email: string;
  name: string;
  role: string;
  apiToken?: { id: string; name: string };
}

async function login(ctx: Context): Promise<number> {
  const url = required(ctx.values.url, "--url").replace(/\/+$/, "");
  let token = ctx.values.token ?? ctx.io.env.PACKRAT_TOKEN;
  const file = ctx.values["token-file"];
  if (file !== undefined) {
    try {
      token = readFileSync(resolve(ctx.io.cwd, file), "utf8").trim();
    } catch (error) {
      ctx.io.stderr(`packrat: cannot read ${file}: ${(error as Error).message}\n`);
      return REMOTE_EXIT.badFile;
    }
  }
  if (!token) throw new UsageError("missing token: --token-file FILE or PACKRAT_TOKEN");
  if (ctx.values.token !== undefined)
    ctx.io.stderr(
      "packrat: warning: --token puts the token in this command line, which every user of the host can read; prefer --token-file or PACKRAT_TOKEN\n",
    );
  try {
    new URL(url);
  } catch {
    throw new UsageError(`--url: not a URL: ${url}`);
  }
  const me = await new ControlPlaneClient({ url, token }, ctx.io.fetch).query<Me>("users.me");
  const path = writeConfig(ctx.io.env, { url, token });
  ctx.print(`Logged in to ${url} as ${me.email} (token role ${me.role}); stored in ${path}`, {
    url,
    user: me,
    config: path,
  });
  return REMOTE_EXIT.ok;
}

async function whoami(ctx: Context): Promise<number> {
  const me = await ctx.client().query<Me>("users.me");
  ctx.print(
    `${me.email} (${me.role})${me.apiToken ? ` via token ${me.apiToken.name}` : ""} at ${ctx.client().config.url}`,
    me,
  );
  return REMOTE_EXIT.ok;
}

async function modelsList(ctx: Context): Promise<number> {
  const models = await ctx
    .client()
    .query<
      Array<{ id: string; name: string; latestVersion?: { id: string; number: number } | null; versions?: number }>
    >("models.list", ctx.values.search ? { search: ctx.values.search } : undefined);
  ctx.print(models.length === 0 ? "No models." : models.map((m) => `${m.id}  ${m.name}`).join("\n"), models);
  return REMOTE_EXIT.ok;
}

interface UploadResult {
  model: { id: string; name: string; created: boolean };
  version: { id: string; number: number };
  deduplicated: boolean;
  sha256: string;
  bytes: number;
}

async function modelsUpload(ctx: Context, file: string | undefined): Promise<number> {
  const path = resolve(ctx.io.cwd, required(file, "the model file (packrat models upload FILE.onnx --name NAME)"));
  const name = required(ctx.values.name, "--name");
  let bytes: number;
  try {
    bytes = statSync(path).size;
  } catch (error) {
    ctx.io.stderr(`packrat: cannot read ${file}: ${(error as Error).message}\n`);
    return REMOTE_EXIT.badFile;
  }
  ctx.progress(`uploading ${file} (${bytes} bytes) as ${name}…`);
  const body = Readable.toWeb(createReadStream(path)) as unknown as BodyInit;
  const result = await ctx.client().upload<UploadResult>(
    {
      name,
      description: ctx.values.description,
      fileName: path.split("/").pop(),
      dims: ctx.values.dims,
      batchAxes: ctx.values["batch-axes"],
    },
    body,
    bytes,
  );
  ctx.print(
    `${result.deduplicated ? "Already registered" : "Registered"}: ${result.model.name} version ${result.version.number} (version id ${result.version.id}, sha256 ${result.sha256})`,
    result,
  );
  return REMOTE_EXIT.ok;
}

async function modelsImport(ctx: Context, url: string | undefined): Promise<number> {
  const source = required(url, "the model's URL (packrat models import URL --name NAME)");
  ctx.progress(`importing ${source}…`);
  const result = await ctx.client().mutate<UploadResult>("models.importUrl", {
    url: source,
    name: required(ctx.values.name, "--name"),
    description: ctx.values.description,
  });
  ctx.print(
    `Registered: ${result.model.name} version ${result.version.number} (version id ${result.version.id})`,
    result,
  );
  return REMOTE_EXIT.ok;
}

interface AgentRow {
  id: string;
  hostName: string;
  online: boolean;
  allowedCpus: number[];
  deployments: Array<{ id: string; cpus: number[] }>;
}

async function agentsList(ctx: Context): Promise<number> {
  const agents = await ctx.client().query<AgentRow[]>("agents.list");
  ctx.print(
    agents.length === 0
      ? "No agents."
      : agents
          .map((a) => `${a.id}  ${a.hostName}  ${a.online ? "online" : "offline"}  CPUs ${a.allowedCpus.join(",")}`)
          .join("\n"),
    agents,
  );
  return REMOTE_EXIT.ok;
}

interface DeploymentView {
  id: string;
  state: string;
  generation: number;
  observedGeneration: number;
  failureReason: string | null;
}

async function deploy(ctx: Context): Promise<number> {
  const client = ctx.client();
  const agentArg = required(ctx.values.agent, "--agent");
  const modelVersionId = required(ctx.values.version, "--version");
  let cpus = list(ctx.values.cpus, "--cpus");
  const agents = await client.query<AgentRow[]>("agents.list");
  const agent = agents.find((a) => a.id === agentArg || a.hostName === agentArg);
  if (!agent) throw new ControlPlaneError("refused", `no agent ${agentArg} (packrat agents list shows them)`, 404);
  if (!cpus) {
    // Every CPU of the agent that no other deployment holds.
    const taken = new Set(agent.deployments.flatMap((d) => d.cpus));
    cpus = agent.allowedCpus.filter((c) => !taken.has(c));
  }
  const created = await client.mutate<{ id: string }>("deployments.deploy", {
    agentId: agent.id,
    modelVersionId,
    cpus,
  });
  ctx.progress(`deployment ${created.id} on ${agent.hostName}, CPUs ${cpus.join(",")}`);
  if (!ctx.values.wait) {
    ctx.print(created.id, created);
    return REMOTE_EXIT.ok;
  }
  const view = await waitFor(
    ctx,
    () => client.query<DeploymentView>("deployments.get", { id: created.id }),
    (d) => (d.state === "serving" ? "ok" : d.state === "failed" ? "failed" : null),
    (d) => `deployment ${d.id}: ${d.state}`,
  );
  ctx.print(
    view.state === "serving"
      ? created.id
      : `deployment ${created.id} failed: ${view.failureReason ?? "no reason given"}`,
    view,
  );
  return view.state === "serving" ? REMOTE_EXIT.ok : REMOTE_EXIT.failed;
}

async function waitFor<T>(
  ctx: Context,
  probe: () => Promise<T>,
  done: (value: T) => "ok" | "failed" | null,
  describe: (value: T) => string,
): Promise<T> {
  let last = "";
  for (;;) {
    const value = await probe();
    const line = describe(value);
    if (line !== last) {
      ctx.progress(line);
      last = line;
    }
    if (done(value)) return value;
    await sleep(ctx.io.pollMs ?? 2000);
  }
}

async function profileStart(ctx: Context): Promise<number> {
  const input = {
    deploymentId: required(ctx.values.deployment, "--deployment"),
    threads: list(ctx.values.threads, "--threads"),
    batches: list(ctx.values.batches, "--batches"),
    maxBatch: ctx.values["max-batch"] === undefined ? undefined : integer(ctx.values["max-batch"], "--max-batch"),
  };
  const created = await ctx.client().mutate<{ profileId: string; jobId: string }>("profiles.create", input);
  ctx.progress(`profile ${created.profileId} queued (job ${created.jobId})`);
  ctx.print(created.profileId, created);
  return REMOTE_EXIT.ok;
}

interface ProfileView {
  id: string;
  status: string;
  cells: unknown[];
  error?: string | null;
  etaMs: number | null;
}

async function profileWait(ctx: Context, id: string | undefined): Promise<number> {
  const profileId = required(id, "the profile id (packrat profile wait PROFILE_ID)");
  const client = ctx.client();
  const view = await waitFor(
    ctx,
    () => client.query<ProfileView>("profiles.get", { id: profileId }),
    (p) => (p.status === "complete" ? "ok" : ["failed", "cancelled"].includes(p.status) ? "failed" : null),
    (p) =>
      `profile ${p.id}: ${p.status}, ${p.cells.length} cells${p.etaMs ? `, about ${Math.ceil(p.etaMs / 1000)} s left` : ""}`,
  );
  const ok = view.status === "complete";
  ctx.print(
    ok
      ? `profile ${view.id} complete (${view.cells.length} cells)`
      : `profile ${view.id} ${view.status}${view.error ? `: ${view.error}` : ""}`,
    view,
  );
  return ok ? REMOTE_EXIT.ok : REMOTE_EXIT.failed;
}

interface OptimizeView {
  kind: "plan" | "infeasible";
  reason?: string;
  cores: number;
  batchSize?: number;
  latencyMs?: number;
  throughputPerS?: number;
  instances?: Array<{ count: number; threads: number; batch: number }>;
  [key: string]: unknown;
}

const shape = (groups: ReadonlyArray<{ count: number; threads: number; batch: number }>) =>
  groups.map((g) => `${g.count}×⟨t=${g.threads}, b=${g.batch}⟩`).join(" + ");

function optimizeInput(ctx: Context) {
  return {
    deploymentId: required(ctx.values.deployment, "--deployment"),
    profileId: required(ctx.values.profile, "--profile (the profile id)"),
    batchSize: integer(ctx.values.batch, "--batch"),
    batchTimeoutMs: decimal(ctx.values["timeout-ms"], "--timeout-ms"),
  };
}

async function optimizeRemote(ctx: Context): Promise<number> {
  const result = await ctx.client().query<OptimizeView>("proposals.optimize", optimizeInput(ctx));
  if (result.kind === "infeasible") {
    ctx.print(`Infeasible: ${result.reason}`, { kind: result.kind, reason: result.reason, cores: result.cores });
    return REMOTE_EXIT.infeasible;
  }
  const { table: _table, ...summary } = result;
  ctx.print(
    `Plan on T = ${result.cores} cores, B = ${result.batchSize}: ${shape(result.instances!)}; predicted ${result.latencyMs!.toFixed(3)} ms, ${result.throughputPerS!.toFixed(1)} samples/s`,
    summary,
  );
  return REMOTE_EXIT.ok;
}

async function propose(ctx: Context): Promise<number> {
  const input = { ...optimizeInput(ctx), reason: required(ctx.values.reason, "--reason"), trial: ctx.values.trial };
  const created = await ctx
    .client()
    .mutate<{ id: string; trial: { jobId: string; estimateMs: number } | null }>("proposals.create", input);
  if (created.trial)
    ctx.progress(
      `plan trial ${created.trial.jobId} runs first (about ${Math.ceil(created.trial.estimateMs / 1000)} s)`,
    );
  ctx.print(created.id, created);
  return REMOTE_EXIT.ok;
}

interface ProposalRow {
  id: string;
  state: string;
  failureReason?: string | null;
  appliedGeneration?: number | null;
  deployment: { id: string } | null;
}

async function decide(ctx: Context, verb: "approve" | "reject", id: string | undefined): Promise<number> {
  const proposalId = required(id, `the proposal id (packrat ${verb} PROPOSAL_ID)`);
  const client = ctx.client();
  if (verb === "reject") {
    const result = await client.mutate<unknown>("proposals.reject", {
      proposalId,
      comment: required(ctx.values.comment, "--comment (a rejection says why)"),
    });
    ctx.print(`proposal ${proposalId} rejected`, result);
    return REMOTE_EXIT.ok;
  }
  const result = await client.mutate<unknown>("proposals.approve", { proposalId, comment: ctx.values.comment });
  if (!ctx.values.wait) {
    ctx.print(`proposal ${proposalId} approved`, result);
    return REMOTE_EXIT.ok;
  }
  const row = await waitFor(
    ctx,
    async () => {
      const found = (await client.query<ProposalRow[]>("proposals.list", {})).find((p) => p.id === proposalId);
      if (!found) throw new ControlPlaneError("refused", `proposal ${proposalId} not found`, 404);
      return found;
    },
    (p) => (p.state === "applied" ? "ok" : p.state === "failed" ? "failed" : null),
    (p) => `proposal ${p.id}: ${p.state}`,
  );
  ctx.print(
    row.state === "applied"
      ? `proposal ${proposalId} applied (generation ${row.appliedGeneration ?? "?"})`
      : `proposal ${proposalId} failed: ${row.failureReason ?? "no reason given"}`,
    row,
  );
  return row.state === "applied" ? REMOTE_EXIT.ok : REMOTE_EXIT.failed;
}

interface ExportResult {
  modelName: string;
  sourceLabel: string;
  exports: Array<{
    format: string;
    fileName: string;
    content: string;
    differences: Array<{ kind: string; message: string }>;
    exported: { count: number; threads: number; batch: number };
  }>;
}

async function plansExport(ctx: Context): Promise<number> {
  const { proposal, deployment } = ctx.values;
  if ((proposal === undefined) === (deployment === undefined))
    throw new UsageError("plans export: give one of --proposal ID or --deployment ID");
  const format = ctx.values.format;
  if (format !== undefined && !["triton", "ovms", "kserve"].includes(format))
    throw new UsageError(`--format: triton, ovms or kserve (got ${format})`);
  const allow = ctx.values.allow
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const kinds = ["shape", "batch-shares", "dispatch-batch", "pinning", "batching-delay"];
  const unknown = allow?.filter((a) => !kinds.includes(a)) ?? [];
  if (unknown.length) throw new UsageError(`--allow: ${unknown.join(", ")} (kinds: ${kinds.join(", ")})`);
  if (!ctx.values.out && format === undefined && !ctx.values.json)
    throw new UsageError("plans export: give --format to print one file, or --out DIR to write all three");
  let result: ExportResult;
  try {
    result = await ctx.client().query<ExportResult>("proposals.exportPlan", {
      source:
        proposal !== undefined
          ? { kind: "proposal", proposalId: proposal }
          : { kind: "deployment", deploymentId: deployment! },
      format,
      strict: ctx.values.strict,
      allow,
      storageUri: ctx.values["storage-uri"],
    });
  } catch (error) {
    if (error instanceof ControlPlaneError && error.failure === "precondition") {
      ctx.io.stderr(`packrat: ${error.message}\n`);
      return REMOTE_EXIT.notExpressible;
    }
    throw error;
  }
  for (const file of result.exports) {
    for (const d of file.differences) ctx.progress(`warning: ${file.format}: ${d.message}`);
  }
  if (ctx.values.json) {
    ctx.io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return REMOTE_EXIT.ok;
  }
  if (ctx.values.out) {
    const dir = resolve(ctx.io.cwd, ctx.values.out);
    const written: string[] = [];
    for (const file of result.exports) {
      // Triton reads <repository>/<model>/config.pbtxt; the others are single files.
      const target =
        file.format === "triton"
          ? join(dir, "triton", exportModelName(result.modelName), file.fileName)
          : join(dir, file.format, file.fileName);
      mkdirSync(join(target, ".."), { recursive: true });
      writeFileSync(target, file.content);
      written.push(target);
    }
    ctx.io.stdout(`${written.join("\n")}\n`);
    return REMOTE_EXIT.ok;
  }
  ctx.io.stdout(result.exports[0]!.content);
  return REMOTE_EXIT.ok;
}

// The CLI's connection to a control plane: the URL and personal API token it logged in with (a config file only its
// user can read, 0600), tRPC calls over HTTP with the token as a bearer (superjson, as the dashboard sends them), and
// the streamed model upload. Errors come back typed by what a script does about them (exit codes in packrat.ts).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import superjson from "superjson";

export interface CliConfig {
  url: string;
  token: string;
}

/** Where the config lives: $PACKRAT_CONFIG, else $XDG_CONFIG_HOME/packrat/config.json, else ~/.config/packrat/config.json. */
export function configPath(env: Record<string, string | undefined>): string {
  if (env.PACKRAT_CONFIG) return env.PACKRAT_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME ?? ".", ".config");
  return join(base, "packrat", "config.json");
}

/** The URL and token: $PACKRAT_URL / $PACKRAT_TOKEN override the file (CI sets them from its secrets). */
export function readConfig(env: Record<string, string | undefined>): CliConfig | null {
  let file: Partial<CliConfig> = {};
  try {
    file = JSON.parse(readFileSync(configPath(env), "utf8")) as Partial<CliConfig>;
  } catch {
    /* no file yet */
  }
  const url = env.PACKRAT_URL || file.url;
  const token = env.PACKRAT_TOKEN || file.token;
  return url && token ? { url: url.replace(/\/+$/, ""), token } : null;
}

export function writeConfig(env: Record<string, string | undefined>, config: CliConfig): string {
  const path = configPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its old mode on write
  return path;
}

/** Why a call failed, in the terms a script branches on. */
export type CallFailure = "auth" | "refused" | "precondition" | "unavailable";

export class ControlPlaneError extends Error {
  constructor(
    readonly failure: CallFailure,
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ControlPlaneError";
  }
}

function failureOf(status: number, code?: string): CallFailure {
  if (status === 401 || status === 403 || code === "UNAUTHORIZED" || code === "FORBIDDEN") return "auth";
  if (code === "PRECONDITION_FAILED" || status === 412) return "precondition";
  if (status >= 500 || status === 0) return "unavailable";
  return "refused";
}

interface TrpcErrorBody {
  message?: string;
  code?: number;
  data?: { code?: string; httpStatus?: number; domainCode?: string };
}

export class ControlPlaneClient {
  constructor(
    readonly config: CliConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private async send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.fetchImpl(url, {
        ...init,
        headers: { authorization: `Bearer ${this.config.token}`, ...(init.headers as Record<string, string>) },
      });
    } catch (error) {
      throw new ControlPlaneError("unavailable", `cannot reach ${this.config.url}: ${(error as Error).message}`, 0);
    }
  }

  private async unwrap<T>(response: Response): Promise<T> {
    const text = await response.text();
    let body: { result?: { data: unknown }; error?: unknown } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      /* not JSON: a proxy's page, say */
    }
    if (response.ok && body?.result) return superjson.deserialize(body.result.data as never) as T;
    // tRPC errors are superjson-serialized; the CSRF gate's and the upload route's are plain { error: { code, message } }.
    const raw = body?.error as { json?: unknown; code?: unknown; message?: unknown } | undefined;
    const error = (raw && "json" in raw ? superjson.deserialize(raw as never) : raw) as
      (TrpcErrorBody & { code?: number | string }) | undefined;
    const code = error?.data?.code ?? (typeof error?.code === "string" ? error.code : undefined);
    const message = error?.message ?? (text.slice(0, 300) || response.statusText);
    throw new ControlPlaneError(
      failureOf(response.status, error?.data?.domainCode === "PRECONDITION_FAILED" ? "PRECONDITION_FAILED" : code),
      `${message} (HTTP ${response.status}${code ? ` ${code}` : ""})`,
      response.status,
      code,
    );
  }

  async query<T>(path: string, input?: unknown): Promise<T> {
    const encoded = encodeURIComponent(JSON.stringify(superjson.serialize(input)));
    return this.unwrap<T>(await this.send(`${this.config.url}/api/trpc/${path}?input=${encoded}`, { method: "GET" }));
  }

  async mutate<T>(path: string, input?: unknown): Promise<T> {
    return this.unwrap<T>(
      await this.send(`${this.config.url}/api/trpc/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(superjson.serialize(input)),
      }),
    );
  }

  /** POST /api/models/upload with the file as the body (streamed by fetch from the given bytes or stream). */
  async upload<T>(params: Record<string, string | undefined>, body: BodyInit, bytes: number): Promise<T> {
    const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
    const response = await this.send(`${this.config.url}/api/models/upload?${query}`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream", "content-length": String(bytes) },
      body,
      duplex: "half",
    } as RequestInit);
    const text = await response.text();
    let parsed: { error?: { code?: string; message?: string } } | undefined;
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      /* below */
    }
    if (response.ok && parsed) return parsed as T;
    const code = parsed?.error?.code;
    throw new ControlPlaneError(
      failureOf(response.status, code),
      `${parsed?.error?.message ?? text.slice(0, 300)} (HTTP ${response.status}${code ? ` ${code}` : ""})`,
      response.status,
      code,
    );
  }
}

// Where the load goes: loopback by default; another host only when --allow-remote names exactly that host, so a
// typo cannot point a load test at someone's server.
import { LoadgenInputError } from "./errors";

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The target URL (http only), checked against the loopback rule. */
export function checkTarget(url: string, allowRemote?: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new LoadgenInputError("invalid_url", "--url", `"${url}" is not a URL (e.g. http://127.0.0.1:8000)`);
  }
  if (parsed.protocol !== "http:")
    throw new LoadgenInputError("invalid_url", "--url", `only http:// targets are supported, got ${parsed.protocol}`);
  if (parsed.username || parsed.password)
    throw new LoadgenInputError("invalid_url", "--url", "credentials in the URL are not supported; use --token");
  if (!isLoopbackHost(parsed.hostname)) {
    const allowed = allowRemote?.toLowerCase().replace(/^\[(.*)\]$/, "$1");
    if (allowed !== parsed.hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1")) {
      throw new LoadgenInputError(
        "remote_target",
        "--url",
        `${parsed.hostname} is not a loopback address; to load another host, name it: --allow-remote ${parsed.hostname}`,
      );
    }
  }
  return parsed;
}

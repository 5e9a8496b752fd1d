// `tsx scripts/scan-secrets.ts [--list FILE] PATH…`: fails when any secret the tests minted (agent and enrollment
// tokens, session tokens, passwords and their hashes; the list from PACKRAT_SECRETS_LIST or --list) appears in
// the given files or anywhere under the given directories (the CI log, server logs, .next/static). A hit is
// reported by kind, file and line with the secret masked, so the report itself leaks nothing. An empty or
// missing list fails too: it means the recording broke, and a scan for nothing would pass for nothing.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { lineOf, parseSecretList, SecretListError, SecretMatcher, type Secret } from "./lib/secret-scan";
import { testEnv } from "../test/test-env";

export const SECRETS_LIST_ENV = "PACKRAT_SECRETS_LIST";

export interface ScanHit {
  file: string;
  line: number;
  kind: string;
  masked: string;
}
export interface ScanResult {
  secrets: number;
  kinds: Record<string, number>;
  files: number;
  bytes: number;
  hits: ScanHit[];
  problems: string[];
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => filesUnder(join(path, entry.name)));
}

export function scanSecrets(options: { listFile: string | undefined; paths: string[] }): ScanResult {
  const result: ScanResult = { secrets: 0, kinds: {}, files: 0, bytes: 0, hits: [], problems: [] };
  let secrets: Secret[] = [];
  if (!options.listFile) result.problems.push(`no secret list: set ${SECRETS_LIST_ENV} or pass --list`);
  else if (!existsSync(options.listFile))
    result.problems.push(`the secret list ${options.listFile} does not exist: no test recorded a secret`);
  else {
    try {
      secrets = parseSecretList(readFileSync(options.listFile, "utf8"));
    } catch (error) {
      if (!(error instanceof SecretListError)) throw error;
      result.problems.push(error.message);
    }
    if (!secrets.length && !result.problems.length)
      result.problems.push(`the secret list ${options.listFile} is empty: the tests' recording of secrets is broken`);
  }
  result.secrets = secrets.length;
  for (const s of secrets) result.kinds[s.kind] = (result.kinds[s.kind] ?? 0) + 1;
  if (!options.paths.length) result.problems.push("nothing to scan: name the CI log, server logs and .next/static");
  const matcher = new SecretMatcher(secrets);
  for (const path of options.paths) {
    if (!existsSync(path)) {
      result.problems.push(`${path} does not exist`);
      continue;
    }
    for (const file of filesUnder(path)) {
      // latin1 maps bytes one to one, so ASCII secrets are found in any file, text or not.
      const text = readFileSync(file, "latin1");
      result.files++;
      result.bytes += text.length;
      for (const hit of matcher.find(text))
        result.hits.push({ file, line: lineOf(text, hit.index), kind: hit.kind, masked: hit.masked });
    }
  }
  return result;
}

/** The command line; returns the exit status and prints through `say`. */
export function runCli(argv: string[], env: Record<string, string | undefined>, say: (line: string) => void): number {
  const paths = [...argv];
  let listFile = env[SECRETS_LIST_ENV];
  const listAt = paths.indexOf("--list");
  if (listAt >= 0) [, listFile] = paths.splice(listAt, 2);
  const result = scanSecrets({ listFile, paths });
  const kinds = Object.entries(result.kinds)
    .map(([k, n]) => `${n} ${k}`)
    .join(", ");
  say(
    `secret scan: ${result.secrets} secret(s)${kinds ? ` (${kinds})` : ""} in ${result.files} file(s), ${(result.bytes / 1e6).toFixed(1)} MB`,
  );
  for (const problem of result.problems) say(`secret scan: ${problem}`);
  for (const hit of result.hits.slice(0, 50))
    say(`secret scan: LEAK ${hit.kind} ${hit.masked} in ${hit.file}:${hit.line}`);
  if (result.hits.length > 50) say(`secret scan: … and ${result.hits.length - 50} more`);
  const ok = result.hits.length === 0 && result.problems.length === 0;
  say(
    ok
      ? "secret scan: no secret found"
      : `secret scan: FAILED (${result.hits.length} leak(s), ${result.problems.length} problem(s))`,
  );
  return ok ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exit(runCli(process.argv.slice(2), testEnv, (line) => console.log(line)));
}

// The CLI's one view of its environment. Its commands get the variables as a record (PACKRAT_URL, PACKRAT_TOKEN and
// PACKRAT_CONFIG are read by the remote commands), so tests hand them their own.
/** A copy of this process's environment with `extra` laid over it: what a child process inherits, or the source
 *  handed to a parser that validates it. The one way to the raw environment outside this module. */
export function processEnvironment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

/** The directory the user ran the command from: npm sets INIT_CWD, since `npm run` moves to the package root. */
export function invocationDirectory(): string {
  return process.env.INIT_CWD ?? process.cwd();
}

/** Whether bin/packrat.mjs started this process (it sets PACKRAT_CLI_MAIN before importing the entry). */
export function startedByLauncher(): boolean {
  return process.env.PACKRAT_CLI_MAIN === "1";
}

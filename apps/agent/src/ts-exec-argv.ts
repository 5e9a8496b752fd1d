// Children we fork run our TypeScript sources directly: make sure tsx is loaded in them even when this process
// got it another way (vitest, an IDE runner).
export function tsExecArgv(): string[] {
  return process.execArgv.some((arg) => arg.includes("tsx"))
    ? process.execArgv
    : [...process.execArgv, "--import", "tsx"];
}

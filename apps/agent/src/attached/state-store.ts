// What an attached agent keeps on disk so it serves after its own restart before the control plane answers:
// its identity and token (0600), and the last desired state it applied.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { desiredStateSchema, type DesiredState } from "@packrat/contracts/agent-protocol";

export class AgentStateStore {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  private write(name: string, content: string, mode = 0o600): void {
    const target = join(this.dir, name);
    const temp = `${target}.tmp`;
    writeFileSync(temp, content, { mode });
    chmodSync(temp, mode);
    renameSync(temp, target); // atomic: a crash never leaves half a file
  }

  readToken(): string | undefined {
    const path = join(this.dir, "agent-token");
    return existsSync(path) ? readFileSync(path, "utf8").trim() || undefined : undefined;
  }

  writeToken(token: string): void {
    this.write("agent-token", `${token}\n`);
  }

  readDesired(): DesiredState | undefined {
    const path = join(this.dir, "desired.json");
    if (!existsSync(path)) return undefined;
    const parsed = desiredStateSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : undefined;
  }

  writeDesired(desired: DesiredState): void {
    this.write("desired.json", JSON.stringify(desired, null, 2));
  }

  readIdentity(): { agentId: string; controlPlaneUrl: string } | undefined {
    const path = join(this.dir, "agent.json");
    return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
  }

  writeIdentity(identity: { agentId: string; controlPlaneUrl: string }): void {
    this.write("agent.json", JSON.stringify(identity, null, 2));
  }
}

// Which of a deployment's reports are events worth a message: a change of generation, state, failure or
// reconfiguration report, and every estimator proposal. A steady deployment sends none.
import type { DeploymentEvent } from "@packrat/contracts/agent-protocol";

const signature = (e: DeploymentEvent) =>
  JSON.stringify([e.observedGeneration, e.state, e.failureReason ?? null, e.lastReconfiguration ?? null]);

export class DeploymentEvents {
  private sent = new Map<string, string>();
  private queued = new Map<string, DeploymentEvent>();

  /** Queues the event when it says something new (the newest per deployment; a proposal is never dropped). */
  observe(event: DeploymentEvent): void {
    const queued = this.queued.get(event.deploymentId);
    const changed = signature(event) !== (this.sent.get(event.deploymentId) ?? "");
    if (!changed && !event.estimatorProposal && !queued) return;
    const proposal = event.estimatorProposal ?? queued?.estimatorProposal;
    this.queued.set(event.deploymentId, { ...event, ...(proposal ? { estimatorProposal: proposal } : {}) });
  }

  /** Deployments no longer served: forgotten, so a deployment coming back is reported afresh. */
  retain(deploymentIds: ReadonlySet<string>): void {
    for (const id of this.sent.keys()) if (!deploymentIds.has(id)) this.sent.delete(id);
  }

  pending(): DeploymentEvent[] {
    return [...this.queued.values()];
  }

  /** The events were accepted: they are what the control plane now knows. */
  delivered(events: readonly DeploymentEvent[]): void {
    for (const event of events) {
      this.sent.set(event.deploymentId, signature(event));
      if (this.queued.get(event.deploymentId) === event) this.queued.delete(event.deploymentId);
    }
  }

  /** After the control plane lost track (a re-registration): everything is said again. */
  forget(): void {
    this.sent.clear();
  }
}

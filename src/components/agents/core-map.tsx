// A host's CPUs grouped by socket and physical core, each showing which deployment and instance owns it and
// whether the kernel confirms the instance's threads stay there.
import type { HostTopology } from "@/core/topology/types";
import { deploymentColor } from "./deployment-colors";

export interface CoreMapDeployment {
  id: string;
  label: string;
  cpus: number[];
  instances: Array<{ id: number; threads: number; cpus: number[]; affinityOk: boolean }>;
}

/** `planned`: CPU lists a plan would pin instances to (the Optimizer page), so nothing is marked verified. */
export function CoreMap({
  topology,
  allowedCpus,
  deployments,
  planned = false,
}: {
  topology: HostTopology;
  allowedCpus: number[];
  deployments: CoreMapDeployment[];
  planned?: boolean;
}) {
  const owner = new Map<
    number,
    { index: number; deployment: CoreMapDeployment; instance?: number; affinityOk?: boolean }
  >();
  deployments.forEach((deployment, index) => {
    for (const cpu of deployment.cpus) owner.set(cpu, { index, deployment });
    for (const [i, instance] of deployment.instances.entries()) {
      for (const cpu of instance.cpus)
        owner.set(cpu, { index, deployment, instance: i, affinityOk: instance.affinityOk });
    }
  });
  const allowed = new Set(allowedCpus);
  return (
    <div>
      <div className="core-map" data-testid="core-map">
        {topology.sockets.map((socket) => (
          <div className="socket" key={socket.id}>
            <div className="socket-label">
              socket {socket.id}
              {socket.nodes.length > 1 ? ` · ${socket.nodes.length} NUMA nodes` : ""}
            </div>
            <div className="cores">
              {socket.nodes
                .flatMap((node) => node.cores)
                .map((core) => (
                  <div
                    className="core"
                    key={core.cpus.join("-")}
                    title={`socket ${core.socket}, node ${core.node}, core ${core.coreId}`}
                  >
                    {core.cpus.map((cpu) => {
                      const o = owner.get(cpu);
                      const color = o ? deploymentColor(o.index) : undefined;
                      const cls = [
                        "cpu",
                        o ? "owned" : "",
                        o && o.instance === undefined ? "budget" : "",
                        allowed.has(cpu) ? "" : "unusable",
                      ]
                        .filter(Boolean)
                        .join(" ");
                      return (
                        <div
                          key={cpu}
                          className={cls}
                          data-cpu={cpu}
                          style={o && o.instance !== undefined ? { background: color } : o ? { color } : undefined}
                        >
                          <div className="id">CPU {cpu}</div>
                          {o && o.instance !== undefined && (
                            <div>
                              {o.deployment.label.slice(0, 12)} #{o.instance}
                              {planned ? (
                                ""
                              ) : o.affinityOk === false ? (
                                <span className="bad" title="a thread runs outside its CPUs">
                                  {" "}
                                  ✗
                                </span>
                              ) : (
                                " ✓"
                              )}
                            </div>
                          )}
                          {o && o.instance === undefined && <div>budget</div>}
                          {!o && <div>{allowed.has(cpu) ? "idle" : "not usable"}</div>}
                        </div>
                      );
                    })}
                  </div>
                ))}
            </div>
          </div>
        ))}
      </div>
      <div className="core-legend">
        {deployments.map((d, i) => (
          <span key={d.id}>
            <span className="swatch" style={{ background: deploymentColor(i) }} />
            {d.label}
          </span>
        ))}
        <span>
          {planned ? "planned: the CPUs each instance would be pinned to" : "✓ affinity verified from /proc"} · dashed:
          in the budget, no instance · hatched: outside the agent&apos;s CPUs
        </span>
      </div>
    </div>
  );
}

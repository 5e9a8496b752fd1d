import type { GraphNode, InitializerInfo, OnnxModelGraph, SubGraph } from "./graph";

/**
 * One graph body: the top level or a body nested in a node's attribute (If's branches, Loop's and Scan's body),
 * with the path that names it in messages ("" for the top level, e.g. "cond/then_branch" below).
 */
export interface GraphScope {
  path: string;
  initializers: InitializerInfo[];
  nodes: GraphNode[];
  /** The node that owns this body and the attribute holding it; undefined at the top level. */
  owner?: { node: GraphNode; attribute: string; graph: SubGraph };
}

/** Every body nested in a node's attributes, in attribute order. */
export function subGraphsOf(node: GraphNode): Array<{ attribute: string; graph: SubGraph }> {
  const out: Array<{ attribute: string; graph: SubGraph }> = [];
  for (const [attribute, value] of Object.entries(node.attributes)) {
    if (value.kind === "graph") for (const graph of value.graphs) out.push({ attribute, graph });
  }
  return out;
}

/** The top-level graph and every nested body, depth first (a body's nested bodies follow it). */
export function allScopes(graph: OnnxModelGraph): GraphScope[] {
  const scopes: GraphScope[] = [];
  const visit = (scope: GraphScope): void => {
    scopes.push(scope);
    scope.nodes.forEach((node, index) => {
      for (const { attribute, graph: sub } of subGraphsOf(node)) {
        const label = node.name || `${node.opType}_${index}`;
        visit({
          path: `${scope.path ? `${scope.path}/` : ""}${label}/${attribute}`,
          initializers: sub.initializers,
          nodes: sub.nodes,
          owner: { node, attribute, graph: sub },
        });
      }
    });
  };
  visit({ path: "", initializers: graph.initializers, nodes: graph.nodes });
  return scopes;
}

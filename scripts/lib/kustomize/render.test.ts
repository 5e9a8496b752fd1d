// The renderer on small kustomizations written to a temp dir: resources (files, multi-document files, nested
// directories), patches (files and inline), namespace and images — and refusals of what it does not implement.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseImage, renderKustomization, rewriteImage } from "./render";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "kustomize-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      initContainers: [{name: init, image: app}]
      containers:
        - name: web
          image: app:1.0
          env: [{name: A, value: "1"}]
`;

describe("renderKustomization", () => {
  const root = tree({
    "base/kustomization.yaml": "resources: [web.yaml, more.yaml]\nimages: [{name: app, newTag: '2.0'}]\n",
    "base/web.yaml": deployment,
    "base/more.yaml":
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n",
    "overlay/kustomization.yaml": [
      "namespace: shop",
      "resources: [../base]",
      "images: [{name: app, newName: registry.example.com/app}]",
      "patches:",
      "  - path: replicas.yaml",
      "  - patch: |",
      "      apiVersion: apps/v1",
      "      kind: Deployment",
      "      metadata: {name: web}",
      "      spec: {template: {spec: {containers: [{name: web, env: [{name: B, value: '2'}]}]}}}",
    ].join("\n"),
    "overlay/replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 5}\n",
  });

  it("collects resources across files and directories, skipping empty documents, in order", () => {
    expect(renderKustomization(join(root, "base")).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "Deployment/web",
      "Namespace/shop",
      "Service/web",
    ]);
  });

  it("applies the base's images, then the overlay's patches (file and inline), namespace and images", () => {
    const objects = renderKustomization(join(root, "overlay"));
    const web = objects.find((o) => o.kind === "Deployment")! as unknown as {
      metadata: { namespace: string };
      spec: {
        replicas: number;
        template: {
          spec: { containers: Array<{ image: string; env: unknown[] }>; initContainers: Array<{ image: string }> };
        };
      };
    };
    expect(web.spec.replicas).toBe(5);
    // kustomize puts the patch's new element first.
    expect(web.spec.template.spec.containers[0]!.env).toEqual([
      { name: "B", value: "2" },
      { name: "A", value: "1" },
    ]);
    // Base: app:1.0 → app:2.0 and app → app:2.0; overlay: the name changes, the tag stays.
    expect(web.spec.template.spec.containers[0]!.image).toBe("registry.example.com/app:2.0");
    expect(web.spec.template.spec.initContainers[0]!.image).toBe("registry.example.com/app:2.0");
    expect(web.metadata.namespace).toBe("shop");
    // A Namespace is cluster-scoped: it gets no namespace.
    expect(objects.find((o) => o.kind === "Namespace")!.metadata.namespace).toBeUndefined();
  });

  it("refuses fields it does not implement, patches without a target, and missing resources", () => {
    const bad = tree({
      "labels/kustomization.yaml": "resources: []\ncommonLabels: {a: b}\n",
      "target/kustomization.yaml": "resources: [web.yaml]\npatches: [{path: p.yaml, target: {kind: Deployment}}]\n",
      "target/web.yaml": deployment,
      "target/p.yaml": deployment,
      "missing/kustomization.yaml": "resources: [web.yaml]\npatches: [{path: p.yaml}]\n",
      "missing/web.yaml": deployment,
      "missing/p.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec: {replicas: 1}\n",
      "gone/kustomization.yaml": "resources: [nothing.yaml]\n",
    });
    expect(() => renderKustomization(join(bad, "labels"))).toThrow(expect.objectContaining({ code: "unsupported" }));
    expect(() => renderKustomization(join(bad, "target"))).toThrow(/target not supported/);
    expect(() => renderKustomization(join(bad, "missing"))).toThrow(
      expect.objectContaining({ code: "no-patch-target" }),
    );
    expect(() => renderKustomization(join(bad, "gone"))).toThrow(expect.objectContaining({ code: "not-found" }));
    expect(() => renderKustomization(join(bad, "nowhere"))).toThrow(/no kustomization.yaml/);
  });

  it("applies a Component to what the resources rendered (its resources added, its patches on the parent's objects), before the parent's own patches", () => {
    const withComponent = tree({
      "base/kustomization.yaml": "resources: [web.yaml]\n",
      "base/web.yaml": deployment,
      "extra/kustomization.yaml":
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [svc.yaml]\npatches:\n  - patch: |\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: web}\n      spec: {replicas: 3}\n",
      "extra/svc.yaml":
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n",
      "overlay/kustomization.yaml":
        "resources: [../base]\ncomponents: [../extra]\npatches:\n  - patch: |\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: web}\n      spec: {replicas: 4}\n",
      "misuse/kustomization.yaml": "resources: [../extra]\n",
      "notcomponent/kustomization.yaml": "resources: [../base/web.yaml]\ncomponents: [../base]\n",
    });
    const objects = renderKustomization(join(withComponent, "overlay"));
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(["Deployment/web", "Service/web"]);
    expect((objects[0] as unknown as { spec: { replicas: number } }).spec.replicas).toBe(4);
    expect(() => renderKustomization(join(withComponent, "misuse"))).toThrow(/named under components/);
    expect(() => renderKustomization(join(withComponent, "notcomponent"))).toThrow(
      /only a kustomization of kind Component/,
    );
  });
});

describe("images", () => {
  it("splits name, tag and digest; a registry port is not a tag", () => {
    expect(parseImage("registry:5000/team/app:1.2@sha256:abc")).toEqual({
      name: "registry:5000/team/app",
      tag: "1.2",
      digest: "sha256:abc",
    });
    expect(parseImage("registry:5000/app")).toEqual({ name: "registry:5000/app" });
  });

  it("rewrites only the named image: new name, new tag, or a digest", () => {
    expect(rewriteImage("app:1", [{ name: "app", newName: "r/app" }])).toBe("r/app:1");
    expect(rewriteImage("app:1", [{ name: "app", newTag: "2" }])).toBe("app:2");
    expect(rewriteImage("app:1", [{ name: "app", digest: "sha256:f00" }])).toBe("app@sha256:f00");
    expect(rewriteImage("other:1", [{ name: "app", newTag: "2" }])).toBe("other:1");
  });
});

// js-yaml 4 ships no types and @types/js-yaml is not installed; the two functions the renderer uses.
declare module "js-yaml" {
  export function load(input: string, options?: { filename?: string }): unknown;
  export function loadAll(input: string, iterator?: null, options?: { filename?: string }): unknown[];
}

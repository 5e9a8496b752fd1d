// A model's name is how clients address it (POST /v2/models/{name}/infer) and how agents serve it, so it must be
// safe in a URL path segment and in a log line as it is: letters, digits, '.', '_' and '-', starting with a letter
// or digit. Shared by the upload form (to suggest a name from the file) and the server (to refuse anything else).
export const MODEL_NAME_MAX = 64;
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Why `name` cannot be a model name, or null when it can. */
export function modelNameProblem(name: string): string | null {
  if (name.length === 0) return "the model name is empty";
  if (name.length > MODEL_NAME_MAX)
    return `the model name is ${name.length} characters long; at most ${MODEL_NAME_MAX}`;
  if (!MODEL_NAME.test(name)) {
    return (
      "the model name may contain only letters, digits, '.', '_' and '-', and must start with a letter or digit " +
      "(clients address it in URLs: /v2/models/{name}/infer)"
    );
  }
  return null;
}

/** A valid name made from a file name: "My Model (v2).onnx" → "my-model-v2"; "" when nothing usable is left. */
export function suggestModelName(fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, "").replace(/\.(onnx|tar|zip)$/i, "");
  const slug = base
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // é → e
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .replace(/-+$/, "")
    .slice(0, MODEL_NAME_MAX)
    .replace(/[-._]+$/, "");
  return slug;
}

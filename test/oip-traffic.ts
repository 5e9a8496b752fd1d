// Plain JSON inference traffic for tests that only need a deployment to have served something: `total` requests
// at batch 1 (every dynamic dimension 1, every element `fill`), `concurrent` at a time, each required to answer 200.
export async function sendOipTraffic(
  inferenceUrl: string,
  model: string,
  total: number,
  concurrent: number,
  fill = 0,
): Promise<void> {
  const meta = (await (await fetch(`${inferenceUrl}/v2/models/${model}`)).json()) as {
    inputs: Array<{ name: string; datatype: string; shape: number[] }>;
  };
  const body = JSON.stringify({
    inputs: meta.inputs.map((i) => {
      const shape = i.shape.map((d) => (d > 0 ? d : 1));
      return {
        name: i.name,
        datatype: i.datatype,
        shape,
        data: new Array(shape.reduce((a, b) => a * b, 1)).fill(fill),
      };
    }),
  });
  for (let sent = 0; sent < total; sent += concurrent) {
    const statuses = await Promise.all(
      Array.from({ length: Math.min(concurrent, total - sent) }, () =>
        fetch(`${inferenceUrl}/v2/models/${model}/infer`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    const failed = statuses.filter((s) => s !== 200);
    if (failed.length)
      throw new Error(
        `${failed.length} of ${statuses.length} inference requests to ${model} failed: HTTP ${[...new Set(failed)].join(", ")}`,
      );
  }
}

"use client";
// The deployment page's "Load tests" section: its recent load tests (status, result in one line) and the form that
// starts one — pattern and rate, a ramp, or "max rate under the SLO" (the load generator's ramp search). A serving
// deployment takes the load on top of its clients' traffic: the form asks to confirm, and the start is audited.
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { formatTime } from "@/components/format-time";
import type { LoadTestSpec } from "@/contracts/agent-jobs";
import { useTRPC } from "@/trpc/react";
import {
  describeSpec,
  LoadTestFormError,
  sloP99LimitMs,
  specFromForm,
  type FormMode,
  type LoadTestFormValues,
} from "./load-test-form-data";
import "./load-tests.css";

const MODES: Array<{ mode: FormMode; label: string }> = [
  { mode: "open", label: "Fixed rate" },
  { mode: "ramp", label: "Ramp" },
  { mode: "search", label: "Max rate under the SLO" },
];

export const statusBadge = (status: string) =>
  status === "done" ? "ok" : status === "failed" || status === "cancelled" ? "bad" : "warn";

function Field({
  label,
  unit,
  value,
  onChange,
  testId,
  invalid,
}: {
  label: string;
  unit?: string;
  value: string;
  onChange: (v: string) => void;
  testId: string;
  invalid: boolean;
}) {
  return (
    <label className="form-field">
      <span>
        {label}
        {unit ? ` (${unit})` : ""}
      </span>
      <input
        value={value}
        onChange={(e) => onChange(e.target.value)}
        inputMode="decimal"
        data-testid={testId}
        aria-invalid={invalid}
        style={{ width: 110 }}
      />
    </label>
  );
}

function LoadTestForm({
  deploymentId,
  slo,
  serving,
}: {
  deploymentId: string;
  slo: { deadlineMs: number; quantile: number | null } | null;
  serving: boolean;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const sloLimit = sloP99LimitMs(slo);
  const [values, setValues] = useState<LoadTestFormValues>({
    mode: "open",
    pattern: "poisson",
    ratePerS: "20",
    fromRatePerS: "10",
    toRatePerS: "100",
    steps: "5",
    durationS: "30",
    binary: true,
    batch: "1",
    p99LimitMs: String(sloLimit ?? 100),
    startRatePerS: "10",
    maxRatePerS: "1000",
    stepS: "5",
  });
  const [confirmed, setConfirmed] = useState(false);
  const set = (field: keyof LoadTestFormValues) => (v: string) => setValues((old) => ({ ...old, [field]: v }));
  let spec: LoadTestSpec | undefined;
  let problem: LoadTestFormError | null = null;
  try {
    spec = specFromForm(values);
  } catch (error) {
    if (error instanceof LoadTestFormError) problem = error;
    else throw error;
  }
  const start = useMutation(
    trpc.loadTests.start.mutationOptions({ onSuccess: (r) => router.push(`/load-tests/${r.loadTestId}`) }),
  );
  const bad = (f: keyof LoadTestFormValues) => problem?.field === f;
  return (
    <form
      className="panel load-test-form"
      data-testid="load-test-form"
      aria-label="Start a load test"
      onSubmit={(e) => {
        e.preventDefault();
        if (spec && confirmed) start.mutate({ deploymentId, spec, confirmServing: true });
      }}
    >
      <div className="load-test-modes" role="radiogroup" aria-label="Kind of load test">
        {MODES.map((m) => (
          <label key={m.mode} className="load-test-mode">
            <input
              type="radio"
              name="mode"
              checked={values.mode === m.mode}
              onChange={() => setValues((old) => ({ ...old, mode: m.mode }))}
              data-testid={`load-test-mode-${m.mode}`}
            />
            {m.label}
          </label>
        ))}
      </div>
      <div className="form-row">
        {values.mode !== "search" && (
          <label className="form-field">
            <span>Arrivals</span>
            <select
              value={values.pattern}
              onChange={(e) => setValues((old) => ({ ...old, pattern: e.target.value as "constant" | "poisson" }))}
              data-testid="load-test-pattern"
            >
              <option value="poisson">Poisson (random gaps)</option>
              <option value="constant">constant (even gaps)</option>
            </select>
          </label>
        )}
        {values.mode === "open" && (
          <Field
            label="Rate"
            unit="requests/s"
            value={values.ratePerS}
            onChange={set("ratePerS")}
            testId="load-test-rate"
            invalid={bad("ratePerS")}
          />
        )}
        {values.mode === "ramp" && (
          <>
            <Field
              label="From"
              unit="requests/s"
              value={values.fromRatePerS}
              onChange={set("fromRatePerS")}
              testId="load-test-from"
              invalid={bad("fromRatePerS")}
            />
            <Field
              label="To"
              unit="requests/s"
              value={values.toRatePerS}
              onChange={set("toRatePerS")}
              testId="load-test-to"
              invalid={bad("toRatePerS")}
            />
            <Field
              label="Steps"
              value={values.steps}
              onChange={set("steps")}
              testId="load-test-steps"
              invalid={bad("steps")}
            />
          </>
        )}
        {values.mode !== "search" && (
          <Field
            label="Duration"
            unit="s"
            value={values.durationS}
            onChange={set("durationS")}
            testId="load-test-duration"
            invalid={bad("durationS")}
          />
        )}
        {values.mode === "search" && (
          <>
            <Field
              label="p99 limit"
              unit="ms"
              value={values.p99LimitMs}
              onChange={set("p99LimitMs")}
              testId="load-test-limit"
              invalid={bad("p99LimitMs")}
            />
            <Field
              label="Start rate"
              unit="requests/s"
              value={values.startRatePerS}
              onChange={set("startRatePerS")}
              testId="load-test-start-rate"
              invalid={bad("startRatePerS")}
            />
            <Field
              label="Up to"
              unit="requests/s"
              value={values.maxRatePerS}
              onChange={set("maxRatePerS")}
              testId="load-test-max-rate"
              invalid={bad("maxRatePerS")}
            />
            <Field
              label="Each step"
              unit="s"
              value={values.stepS}
              onChange={set("stepS")}
              testId="load-test-step"
              invalid={bad("stepS")}
            />
          </>
        )}
        <Field
          label="Rows per request"
          value={values.batch}
          onChange={set("batch")}
          testId="load-test-batch"
          invalid={bad("batch")}
        />
        <label className="form-field">
          <span>Tensors</span>
          <select
            value={values.binary ? "binary" : "json"}
            onChange={(e) => setValues((old) => ({ ...old, binary: e.target.value === "binary" }))}
            data-testid="load-test-encoding"
          >
            <option value="binary">binary (tensor extension)</option>
            <option value="json">JSON</option>
          </select>
        </label>
      </div>
      {values.mode === "search" && (
        <p className="small muted" style={{ margin: "4px 0" }}>
          Steps up by ×1.5 from the start rate while p99 stays within the limit, then bisects three times.{" "}
          {sloLimit !== null
            ? `The limit starts at the model's SLO (p99 ≤ ${sloLimit} ms).`
            : slo
              ? `The model's SLO is at p${Math.round((slo.quantile ?? 0) * 100)}; the search judges p99.`
              : "The model has no SLO: set the limit here."}
        </p>
      )}
      {problem && (
        <div className="field-error" role="alert" data-testid="load-test-form-error">
          {problem.message}
        </div>
      )}
      {spec && (
        <p className="small" data-testid="load-test-summary">
          {describeSpec(spec)}
        </p>
      )}
      {serving && (
        <label className="load-test-confirm">
          <input
            type="checkbox"
            checked={confirmed}
            onChange={(e) => setConfirmed(e.target.checked)}
            data-testid="load-test-confirm"
          />
          This deployment is serving clients: I confirm the load test adds its load to their traffic (the start is
          recorded in the audit log).
        </label>
      )}
      {start.error && (
        <div className="error-box" role="alert" data-testid="load-test-start-error">
          {start.error.message}
        </div>
      )}
      <div>
        <button
          className="btn primary"
          type="submit"
          disabled={!spec || !confirmed || !serving || start.isPending}
          data-testid="load-test-start"
        >
          {start.isPending ? "Starting…" : "Start the load test"}
        </button>
        {!serving && (
          <span className="small muted" style={{ marginLeft: 8 }}>
            Only a serving deployment can be load tested.
          </span>
        )}
      </div>
    </form>
  );
}

export function DeploymentLoadTests({ deploymentId, canStart }: { deploymentId: string; canStart: boolean }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const deployment = useQuery(trpc.deployments.get.queryOptions({ id: deploymentId }));
  const list = useQuery(
    trpc.loadTests.listForDeployment.queryOptions(
      { deploymentId },
      {
        refetchInterval: (q) =>
          q.state.data?.some((t) => t.status === "queued" || t.status === "running") ? 2000 : 15_000,
      },
    ),
  );
  const tests = list.data ?? [];
  return (
    <div data-testid="deployment-load-tests">
      {list.error && (
        <div className="error-box" role="alert">
          {list.error.message}
        </div>
      )}
      {tests.length === 0 && !list.isPending && (
        <p className="muted small">
          No load test yet. A load test runs on the agent itself, against its own port, so the network between you and
          the host is not in the numbers.
        </p>
      )}
      {tests.length > 0 && (
        <div className="table-wrap">
          <table className="data load-tests-table">
            <thead>
              <tr>
                <th>Started</th>
                <th>Load</th>
                <th>Status</th>
                <th>Result</th>
                <th>Generation</th>
              </tr>
            </thead>
            <tbody>
              {tests.slice(0, 8).map((t) => (
                <tr key={t.id}>
                  <td className="nowrap">
                    <Link href={`/load-tests/${t.id}`}>{formatTime(t.createdAt)}</Link>
                  </td>
                  <td>{describeSpec(t.spec)}</td>
                  <td>
                    <span className={`badge ${statusBadge(t.status)}`}>{t.status}</span>
                  </td>
                  <td className="nowrap">
                    {t.maxRatePerS !== null ? (
                      `max ${t.maxRatePerS.toFixed(1)} req/s`
                    ) : t.okPerS !== null ? (
                      `${t.okPerS.toFixed(1)} ok/s · p99 ${t.p99Ms?.toFixed(1)} ms`
                    ) : t.error ? (
                      <span className="muted" title={t.error}>
                        {t.error.slice(0, 40)}
                      </span>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td>{t.generationAtStart ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canStart && !open && (
        <button
          className="btn"
          type="button"
          onClick={() => setOpen(true)}
          data-testid="load-test-new"
          style={{ marginTop: 8 }}
        >
          New load test…
        </button>
      )}
      {canStart && open && deployment.data && (
        <LoadTestForm
          deploymentId={deploymentId}
          slo={deployment.data.slo}
          serving={deployment.data.state === "serving"}
        />
      )}
    </div>
  );
}

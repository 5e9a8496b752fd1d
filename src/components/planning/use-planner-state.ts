"use client";
import { useCallback, useEffect, useState } from "react";
import type { FormSpec, RawState } from "@/lib/planning/fields";
import { serializeUrlState } from "@/lib/planning/url-state";

/**
 * A planner's raw inputs, mirrored into the URL (replaceState: no history entry per keystroke) so the address bar
 * always reproduces the view. The initial state comes from the server page's searchParams.
 */
export function usePlannerState<S extends FormSpec>(spec: S, initial: RawState<S>, extraQuery = "") {
  const [state, setState] = useState<RawState<S>>(initial);

  // extraQuery: the page's own parameters beside the planner's (e.g. the chosen deployment), kept in the address.
  useEffect(() => {
    const query = [extraQuery, serializeUrlState(spec, state)].filter(Boolean).join("&");
    if (window.location.search.replace(/^\?/, "") !== query) {
      window.history.replaceState(null, "", `${window.location.pathname}?${query}`);
    }
  }, [spec, state, extraQuery]);

  const setField = useCallback((key: keyof S, value: string) => setState((s) => ({ ...s, [key]: value })), []);
  return { state, setField, setState };
}

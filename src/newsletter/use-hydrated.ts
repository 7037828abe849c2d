// Whether React runs yet.
import { useSyncExternalStore } from "react";

const neverChanges = () => () => undefined;

/**
 * False in the pre-rendered HTML and while React takes it over, true from the render right after:
 * what the page shows before its scripts run, and with JavaScript off, stays the server's version.
 */
export const useHydrated = (): boolean =>
  useSyncExternalStore(
    neverChanges,
    () => true,
    () => false,
  );

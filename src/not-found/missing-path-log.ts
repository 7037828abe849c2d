/**
 * The product's promise for the 404 page: the attempted path is written to the console when the
 * page shows. Gatsby's scripts come only after the page has loaded (src/loading/script-starter.ts),
 * so the pre-rendered page carries MISSING_PATH_SCRIPT inline and logs while it is parsed, before
 * and without them. The page as React renders it calls `logMissingPath`, which logs only what the
 * inline script did not: a missing page reached by a navigation inside the site runs no inline
 * script.
 */
export const MISSING_PATH_MESSAGE = "404 Error: User attempted to access non-existent route:";

/** The global the inline script leaves for React: the path it logged. */
const LOGGED_PATH = "___missingPathLogged";

/** Plain ES5; its exact text is hashed into the Content-Security-Policy like every inline script. */
export const MISSING_PATH_SCRIPT = `console.error(${JSON.stringify(MISSING_PATH_MESSAGE)}, location.pathname);window.${LOGGED_PATH}=location.pathname;`;

export function logMissingPath(pathname: string): void {
  const logged = window as unknown as Record<typeof LOGGED_PATH, string | undefined>;
  if (logged[LOGGED_PATH] === pathname) {
    // Logged once already, by the inline script; a later visit to the same path logs again.
    delete logged[LOGGED_PATH];
    return;
  }
  console.error(MISSING_PATH_MESSAGE, pathname);
}

/**
 * The two pages of the site around the editor's GitHub sign-in (contract/cms-sign-in.ts), written
 * beside the CMS at build time because they must know where the functions are: `/admin/sign-in/`
 * forwards Decap's popup to cms-auth, and `/admin/signed-in/` exchanges the one-time code for the
 * token and hands it to the window that opened it. Both run `/admin/sign-in.js` (static/admin/),
 * a file, so the site's policy needs no inline script; the reasons it may have to say travel as
 * JSON data, not code.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  CMS_SIGN_IN_PATH,
  CMS_SIGN_IN_REASONS,
  CMS_SIGNED_IN_PATH,
} from "../supabase/functions/_shared/contract/cms-sign-in.ts";
import { escapeHtml } from "../supabase/functions/_shared/contract/escape-html.ts";

/** The functions' base the pages call: `GATSBY_SUPABASE_URL`'s, else the page's own origin's. */
export function functionsBaseFor(supabaseUrl: string | undefined): string {
  return supabaseUrl ? `${supabaseUrl.replace(/\/+$/, "")}/functions/v1` : "/functions/v1";
}

function page(step: "forward" | "finish", title: string, text: string, functionsBase: string): string {
  // `<` never closes the data block early.
  const reasons = JSON.stringify(CMS_SIGN_IN_REASONS).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en" data-step="${step}" data-functions="${escapeHtml(functionsBase)}">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex, nofollow" />
    <meta name="referrer" content="no-referrer" />
    <title>${escapeHtml(title)} · Content editor</title>
    <link rel="stylesheet" href="/admin/editor.css" />
    <script type="application/json" id="reasons">${reasons}</script>
    <script src="/admin/sign-in.js" defer></script>
  </head>
  <body class="sign-in">
    <main>
      <h1 id="title">${escapeHtml(title)}</h1>
      <p id="message" role="status">${escapeHtml(text)}</p>
    </main>
  </body>
</html>
`;
}

export async function writeSignInPages(publicDir: string, functionsBase: string): Promise<void> {
  const pages: Array<[string, "forward" | "finish", string, string]> = [
    [CMS_SIGN_IN_PATH, "forward", "Signing in with GitHub", "Taking you to GitHub to sign in…"],
    [CMS_SIGNED_IN_PATH, "finish", "Signing in with GitHub", "Finishing the sign-in…"],
  ];
  for (const [urlPath, step, title, text] of pages) {
    const dir = path.join(publicDir, urlPath);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "index.html"), page(step, title, text, functionsBase));
  }
}

// The content editor's local backend, with a token, on a copy of `content/`.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { startCmsBackend } from "../../scripts/cms-backend";
import { ROOT } from "./stack";

export interface CmsBackendCopy {
  /** Where it answers, e.g. http://localhost:41235/api/v1 (with `?token=`). */
  apiUrl: string;
  port: number;
  token: string;
  /** The copy of the project it edits: `content/` there, never the repository's own. */
  repoDir: string;
  stop(): Promise<void>;
}

/**
 * The content editor's local backend, started as `npm run cms` starts it (a token of its own) on
 * `port` (a free loopback port unless told), editing a temporary copy of `content/`, so a test saves
 * through the CMS without touching the repository.
 */
export async function startCmsBackendCopy(siteOrigins: string[], port = 0): Promise<CmsBackendCopy> {
  const repoDir = mkdtempSync(path.join(tmpdir(), "purpose-cms-"));
  cpSync(path.join(ROOT, "content"), path.join(repoDir, "content"), { recursive: true });
  const token = randomBytes(24).toString("base64url");
  try {
    const backend = await startCmsBackend({ root: repoDir, token, port, siteOrigins });
    return {
      apiUrl: backend.url,
      port: backend.port,
      token,
      repoDir,
      stop: () => backend.close().finally(() => rmSync(repoDir, { recursive: true, force: true })),
    };
  } catch (error) {
    rmSync(repoDir, { recursive: true, force: true });
    throw error;
  }
}

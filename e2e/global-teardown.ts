// After the browser tests: the background build's end (test/support/test-site-build.ts).
import { stopTestSiteBuild } from "../test/support/test-site-build";

export default function globalTeardown(): void {
  stopTestSiteBuild();
}

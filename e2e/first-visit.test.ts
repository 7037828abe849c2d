import { VIEWPORTS } from "../test/support/browser";
import { notice, visible } from "../test/support/expect";
import {
  FIRST_VISIT_BUDGET_BYTES,
  firstVisitScripts,
  kb,
  ON_DEMAND_CHUNK,
  totalGzipBytes,
} from "../test/support/first-visit";
import { inlineCard } from "../test/support/newsletter";
import { describeInBrowser, uniqueAddress, useSite } from "../test/support/site";
import { SPEC } from "../test/support/texts";

describeInBrowser("what a first visit downloads", () => {
  const site = useSite();

  it("loads supabase-js and the notices only with the first submit, and stays within the budget", async () => {
    const context = await site.browser.newContext({ viewport: VIEWPORTS.mobile });
    try {
      const page = await context.newPage();
      const scripts = await firstVisitScripts(page, `${site.url}/`);
      const files = scripts.map((script) => script.file);
      expect(files.filter((file) => ON_DEMAND_CHUNK.test(file))).toEqual([]);
      const total = totalGzipBytes(scripts);
      if (total > FIRST_VISIT_BUDGET_BYTES) {
        throw new Error(
          `A first visit downloads ${kb(total)} of gzipped JavaScript, over the ${kb(FIRST_VISIT_BUDGET_BYTES)} budget: ${files.join(", ")}`,
        );
      }

      const later: string[] = [];
      page.on("request", (request) => later.push(new URL(request.url()).pathname.split("/").pop() ?? ""));
      const { field, button } = inlineCard(page);
      await field.fill(uniqueAddress("first-visit"));
      await button.click();
      await visible(notice(page, "success", SPEC.inlineSuccessTitle));
      // The check above can fail: the same names do turn up once they are needed.
      expect(
        later
          .filter((file) => ON_DEMAND_CHUNK.test(file))
          .map((file) => file.split("-")[0])
          .sort(),
      ).toEqual(["notices", "supabase"]);
    } finally {
      await context.close();
    }
  });
});

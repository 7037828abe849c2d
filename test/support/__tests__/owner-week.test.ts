/**
 * The clock a weekly-report test starts from stays in one reporting week in the brand's time zone
 * for the test's span, whatever the hour the run happens at.
 */
import { clearOfWeekEnd } from "../owner-week.ts";

const NEW_YORK = "America/New_York";
const HOURS = 3_600_000;

describe("clearOfWeekEnd", () => {
  it("leaves the clock where the span ends in the same week", () => {
    // Thursday afternoon in New York.
    expect(clearOfWeekEnd(NEW_YORK, 3 * HOURS, new Date("2026-11-26T20:00:00Z"))).toBe(0);
    // Monday 00:30 in New York: a new week has just begun.
    expect(clearOfWeekEnd(NEW_YORK, 3 * HOURS, new Date("2026-11-30T05:30:00Z"))).toBe(0);
  });

  it("sets it back by the span when the week ends within it (Sunday late in New York, Monday in UTC)", () => {
    // Sunday 22:30 in New York, 03:30 on Monday in UTC: the week ends in 90 minutes there.
    expect(clearOfWeekEnd(NEW_YORK, 3 * HOURS, new Date("2026-11-30T03:30:00Z"))).toBe(-3 * HOURS);
    // The same moment in UTC's own week: it ended three and a half hours before.
    expect(clearOfWeekEnd("UTC", 3 * HOURS, new Date("2026-11-30T03:30:00Z"))).toBe(0);
  });
});

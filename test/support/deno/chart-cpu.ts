/**
 * The owner's weekly chart drawn under Deno as the weekly report draws it on Supabase, twice, and
 * what each cost this process's JavaScript thread in CPU (read from /proc, as the gateway stand-in
 * counts a worker's): the first time with resvg's loading, the second the drawing alone. Run by
 * supabase/functions/__tests__/weekly-report-deno.test.ts on Deno 2.1.4; prints one line of JSON.
 */
import type { GrowthDay } from "../../../supabase/functions/_shared/report/growth.ts";
import type { WeekNumbers } from "../../../supabase/functions/_shared/report/week.ts";
import { drawPng, weeklyChartSvg } from "../../../supabase/functions/_shared/report/weekly-chart.ts";

/** CPU (ms) of this process's main thread: utime and stime, in ticks of 10 ms. */
function threadCpuMs(): number {
  const stat = Deno.readTextFileSync(`/proc/self/task/${Deno.pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

let listSize = 900;
const days: GrowthDay[] = Array.from({ length: 56 }, (_, index) => {
  const joined = 3 + ((index * 7) % 11);
  const [unsubscribed, bounced, complained] = [index % 4, index % 9 === 0 ? 2 : 0, index % 13 === 0 ? 1 : 0];
  listSize += joined - unsubscribed - bounced - complained;
  const day = new Date(Date.UTC(2026, 9, 5 + index)).toISOString().slice(0, 10);
  return { day, joined, unsubscribed, bounced, complained, listSize, bySource: {} };
});
const svg = weeklyChartSvg({ days } as WeekNumbers, {
  title: "Chart: the list over eight weeks",
  listSize: "Readers on the list",
  joined: "New confirmed readers",
  unsubscribed: "Unsubscribes",
  bounced: "Bounces",
  complained: "Complaints",
});

const runs = [];
for (let run = 0; run < 2; run++) {
  const before = threadCpuMs();
  const chart = await drawPng(svg);
  runs.push({
    cpuMs: threadCpuMs() - before,
    loadMs: Math.round(chart.loadMs),
    drawMs: Math.round(chart.drawMs),
    width: chart.width,
    height: chart.height,
    bytes: chart.png.length,
  });
}
console.log(JSON.stringify({ deno: Deno.version.deno, first: runs[0], again: runs[1] }));

import { interleaved, longTaskVerdict, tasksAfterPaint } from "../long-tasks";

describe("the long tasks after the first paint", () => {
  it("counts only the tasks that start at or after the first paint", () => {
    const tasks = [
      { startTime: 100, duration: 240 },
      { startTime: 600, duration: 72 },
      { startTime: 900, duration: 130 },
      { startTime: 1500, duration: 51 },
    ];

    expect(tasksAfterPaint(tasks, 600)).toEqual({
      longestMs: 130,
      count: 3,
      blockingMs: 22 + 80 + 1,
      after: tasks.slice(1),
    });
  });

  it("is zero when nothing over 50 ms ran after the first paint", () => {
    expect(tasksAfterPaint([{ startTime: 10, duration: 300 }], 400)).toEqual({
      longestMs: 0,
      count: 0,
      blockingMs: 0,
      after: [],
    });
  });

  it("alternates the pages, each round starting one page later", () => {
    expect(interleaved(["ours", "twin"], 3)).toEqual(["ours", "twin", "twin", "ours", "ours", "twin"]);
    expect(interleaved(["a", "b", "c"], 2)).toEqual(["a", "b", "c", "b", "c", "a"]);
  });

  it("allows the twin's longest task plus 30 ms and says by how much it is missed", () => {
    expect(longTaskVerdict(30, 0)).toEqual({
      met: true,
      limitMs: 30,
      detail: "30 ms vs limit 30 ms (the twin 0 ms)",
    });
    expect(longTaskVerdict(111, 60).met).toBe(false);
    expect(longTaskVerdict(111, 60).detail).toBe("111 ms vs limit 90 ms (the twin 60 ms), 21 ms over");
  });
});

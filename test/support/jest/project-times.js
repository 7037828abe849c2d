/**
 * A Jest reporter beside the default one: after every run, how long each project took (from its
 * first test file's start to its last one's end, and the files' own time summed) and its slowest
 * files, so a run that grows says where. `npm test` must stay within 10 minutes on two cores.
 */
class ProjectTimes {
  constructor() {
    /** @type {Map<string, { start: number; end: number; files: number; ownMs: number; slowest: Array<[string, number]> }>} */
    this.projects = new Map();
    this.started = Date.now();
  }

  onTestResult(test, result) {
    const name = test.context.config.displayName?.name ?? "default";
    const { start, end } = result.perfStats;
    const project = this.projects.get(name) ?? { start, end, files: 0, ownMs: 0, slowest: [] };
    project.start = Math.min(project.start, start);
    project.end = Math.max(project.end, end);
    project.files += 1;
    project.ownMs += end - start;
    project.slowest.push([test.path.replace(`${test.context.config.rootDir}/`, ""), end - start]);
    project.slowest.sort((a, b) => b[1] - a[1]).splice(3);
    this.projects.set(name, project);
  }

  onRunComplete() {
    const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
    const lines = [...this.projects].map(
      ([name, project]) =>
        `  ${name.padEnd(8)} ${seconds(project.end - project.start).padStart(6)} (${project.files} files, ${seconds(project.ownMs)} of their own); slowest: ${project.slowest
          .map(([file, ms]) => `${file} ${seconds(ms)}`)
          .join(", ")}`,
    );
    console.log(
      `\nTime per project (the whole run ${seconds(Date.now() - this.started)}):\n${lines.join("\n")}`,
    );
  }
}

module.exports = ProjectTimes;

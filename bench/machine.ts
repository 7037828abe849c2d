/**
 * The machine `npm run bench` runs on, as its results record it: the CPU, the load average before
 * and after, and any other heavy work running beside it (builds, test runs), which would skew the
 * numbers and is warned about at the start.
 */
import { execFileSync } from "node:child_process";
import os from "node:os";

export interface Machine {
  cpus: number;
  cpuModel: string;
  loadAverageBefore: number[];
  /** Other heavy processes, each as `ps` shows it. */
  otherHeavyWork: string[];
}

/** Other heavy processes on the machine (builds, test runs), which would skew the numbers. */
function heavyNeighbours(): string[] {
  const listing = execFileSync("ps", ["-eo", "pid=,pcpu=,args="], { encoding: "utf8" });
  return listing
    .split("\n")
    .filter((line) => /gatsby (build|develop)|jest|lighthouse|autocannon/.test(line))
    .filter((line) => !line.includes(String(process.pid)) && !/\bps -eo\b/.test(line))
    .map((line) => line.trim().slice(0, 120));
}

/** The machine before the run, printed with a warning about other heavy work. */
export function machineBefore(): Machine {
  const otherHeavyWork = heavyNeighbours();
  if (otherHeavyWork.length > 0) {
    console.warn(`Other heavy work is running; the numbers will be noisy:\n  ${otherHeavyWork.join("\n  ")}`);
  }
  const loadAverageBefore = os.loadavg();
  const cpuModel = os.cpus()[0]?.model ?? "unknown";
  console.log(
    `Machine: ${os.cpus().length} CPUs (${cpuModel}), load average ${loadAverageBefore[0].toFixed(2)}.`,
  );
  return { cpus: os.cpus().length, cpuModel, loadAverageBefore, otherHeavyWork };
}

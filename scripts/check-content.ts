/**
 * `npm run check:content`: every file in content/ against its description in
 * src/content/schema.ts, the same check the build runs, without building. Each problem names the
 * file and the field; on GitHub Actions it is also an annotation on that file in the pull request.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { readYaml } from "../src/content/yaml.ts";
import { checkContent, contentTypes } from "../src/content/schema.ts";
import { readVariable } from "../supabase/functions/_shared/contract/variables.ts";
import { loadEffects } from "../src/effects/effects.ts";

export interface ContentProblem {
  file: string;
  message: string;
}

export function contentProblems(root: string): ContentProblem[] {
  return [...fileProblems(root), ...effectProblems(root)];
}

/** The Effects of the Day, checked by the build's own reader; each problem starts with its file. */
function effectProblems(root: string): ContentProblem[] {
  return loadEffects(path.join(root, "content", "effects")).problems.map((message) => {
    const shown = message.slice(0, message.indexOf(": "));
    const file = path.relative(root, path.resolve(shown));
    return { file, message: `${file}${message.slice(shown.length)}` };
  });
}

function fileProblems(root: string): ContentProblem[] {
  return contentTypes.flatMap((type) => {
    const file = `content/${type.file}.yaml`;
    let data: unknown;
    try {
      data = readYaml(readFileSync(path.join(root, file), "utf8"), file);
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code === "ENOENT"
          ? "is missing: the site needs it"
          : `is not valid YAML: ${(error as Error).message}`;
      return [{ file, message: `${file} ${reason}` }];
    }
    return checkContent(type.fields, data).map((problem) => ({ file, message: `${file}: ${problem}` }));
  });
}

/** A GitHub Actions workflow command; its data must escape %, CR and LF. */
const annotation = ({ file, message }: ContentProblem): string =>
  `::error file=${file},title=Content error::${message.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}`;

if (require.main === module) {
  const problems = contentProblems(path.resolve(__dirname, ".."));
  for (const problem of problems) {
    console.error(
      readVariable(process.env, "GITHUB_ACTIONS") === "true" ? annotation(problem) : problem.message,
    );
  }
  if (problems.length > 0) {
    console.error(`\n${problems.length} problem(s) in content/: fix the fields named above.`);
    process.exit(1);
  }
  console.log(`content/: ${contentTypes.length} files match src/content/schema.ts.`);
}

/**
 * The one YAML reader and writer of the project: js-yaml 4, whose `load` knows only YAML's core
 * schema (no tags that make functions or regular expressions), so a content file can hold data and
 * nothing else. The build's nodes (gatsby-node.ts), the Effects, the brand read before GraphQL, the
 * content check and the CMS configuration all go through it; the content editor in the browser
 * loads the same library's bundle (build/cms-admin.ts).
 */
import { dump, load, YAMLException } from "js-yaml";

/** The data in `text`; for text that is not YAML, an error that says what and where, in words. */
export function readYaml(text: string, file?: string): unknown {
  try {
    return load(text, { filename: file });
  } catch (error) {
    if (!(error instanceof YAMLException) || !error.mark) throw error;
    throw new Error(`${error.reason} at line ${error.mark.line + 1}, column ${error.mark.column + 1}`);
  }
}

export const writeYaml = (data: unknown, options: { lineWidth?: number } = {}): string =>
  dump(data, { noRefs: true, lineWidth: options.lineWidth ?? 120 });

/**
 * What every step of the build is given by gatsby-node.ts's hooks (Gatsby's data layer and its
 * reporter) and its one way to read the content: `query`, which answers the query's data or throws
 * naming what could not be read, for gatsby-node.ts to fail the build with.
 */
import type { BuildArgs, Reporter } from "gatsby";

/** Where `gatsby build` writes the site. */
export const PUBLIC_DIR = "public";

export interface BuildStepArgs {
  graphql: BuildArgs["graphql"];
  reporter: Reporter;
}

/** A step's query failed: `errors` are Gatsby's, for the build's report. */
export class BuildQueryError extends Error {
  constructor(
    message: string,
    readonly errors: Error[] | undefined,
  ) {
    super(message);
  }
}

/** The data of one of the step's queries; `what` names it for the failure ("the Effects' cards"). */
export async function query<Data>(
  { graphql }: BuildStepArgs,
  what: string,
  text: string,
  variables?: Record<string, unknown>,
): Promise<Data> {
  const { data, errors } = await graphql<Data>(text, variables);
  if (errors || !data) throw new BuildQueryError(`Could not read ${what}`, errors as Error[] | undefined);
  return data;
}

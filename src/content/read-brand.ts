import { readFileSync } from "fs";
import path from "path";
import yaml from "js-yaml";
import { checkContent, contentTypeForFile } from "./schema";

export interface BrandBasics {
  name: string;
  siteUrl: string;
  timeZone: string;
  description: string;
  author: { name: string };
  hero: { tagline: string };
}

/** Reads and checks content/brand.yaml for build configuration that runs before GraphQL. */
export function readBrand(contentDir = path.resolve("content")): BrandBasics {
  const file = path.join(contentDir, "brand.yaml");
  let data: unknown;
  try {
    data = yaml.load(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(
      `content/brand.yaml could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const spec = contentTypeForFile("brand");
  const problems = spec ? checkContent(spec.fields, data) : [];
  if (problems.length > 0) {
    throw new Error(`content/brand.yaml: ${problems.join("; ")}`);
  }
  return data as BrandBasics;
}

import { readFileSync } from "fs";
import path from "path";
import yaml from "js-yaml";
import type { LandingPageData } from "../pages/index";
import type { NotFound } from "../content/schema";

/** The real files from content/, as the page query returns them. */
export function readContent<T>(file: string): T {
  return yaml.load(readFileSync(path.join(__dirname, "..", "..", "content", `${file}.yaml`), "utf8")) as T;
}

export const landingData = (): LandingPageData => ({
  brand: readContent("brand"),
  landing: readContent("landing"),
  story: readContent("story"),
  channels: readContent("channels"),
  coreValues: readContent("core-values"),
  newsletter: readContent("newsletter"),
});

export const notFoundData = () => ({
  brand: landingData().brand,
  notFound: readContent<NotFound>("not-found"),
});

// `content/` read for the site's unit tests.
import { readFileSync } from "fs";
import path from "path";
import { readYaml } from "../../src/content/yaml";
import type { PageProps } from "gatsby";
import type { IGatsbyImageData } from "gatsby-plugin-image";
import type { LandingPageData } from "../../src/pages/index";
import type { NotFound, Privacy } from "../../src/content/schema";

/** The real files from content/, as the page query returns them. */
export function readContent<T>(file: string): T {
  return readYaml(readFileSync(path.join(__dirname, "..", "..", "content", `${file}.yaml`), "utf8")) as T;
}

/** The hero picture as the page query's `gatsbyImageData` returns it (file names made up). */
export function heroImageData(): IGatsbyImageData {
  const sizes =
    "(min-width: 1152px) 504px, (min-width: 1024px) calc((100vw - 120px) / 2.05), (min-width: 784px) 720px, (min-width: 640px) calc(100vw - 64px), calc(100vw - 40px)";
  const srcSet = (format: string) =>
    [360, 720, 1440].map((width) => `/static/hero-${width}.${format} ${width}w`).join(",");
  return {
    layout: "constrained",
    width: 720,
    height: 495,
    images: {
      fallback: { src: "/static/hero-720.jpg", srcSet: srcSet("jpg"), sizes },
      sources: [
        { type: "image/avif", srcSet: srcSet("avif"), sizes },
        { type: "image/webp", srcSet: srcSet("webp"), sizes },
      ],
    },
    placeholder: { fallback: "data:image/jpeg;base64,/9j/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEY" },
  };
}

export const landingData = (): LandingPageData => ({
  brand: readContent("brand"),
  heroImage: { childImageSharp: { gatsbyImageData: heroImageData() } },
  landing: readContent("landing"),
  story: readContent("story"),
  channels: readContent("channels"),
  coreValues: readContent("core-values"),
  newsletter: readContent("newsletter"),
  effectPages: readContent("effect-pages"),
});

/** The landing page's props as Gatsby hands them over: its data and where it is. */
export const landingProps = (data = landingData()) =>
  ({ data, location: { pathname: "/" } }) as unknown as PageProps<LandingPageData>;

export const privacyData = () => ({
  brand: landingData().brand,
  landing: { footer: landingData().landing.footer },
  effectPages: readContent<{ name: string; effect: { archiveLabel: string } }>("effect-pages"),
  privacy: readContent<Privacy>("privacy"),
});

export const notFoundData = () => ({
  brand: landingData().brand,
  notFound: readContent<NotFound>("not-found"),
  effectPages: readContent<{ name: string }>("effect-pages"),
});

// Gatsby's plugins: the content folders as sources, images, PostCSS with Tailwind, the sitemap and the web manifest.
import { existsSync } from "fs";
import path from "path";
import type { GatsbyConfig } from "gatsby";
import { adminSecurityHeaders, isAdminPath, localBackendOrigins } from "./site-headers/security-headers";
import { readBrand } from "./src/content/read-brand";
import { readNumberVariable } from "./supabase/functions/_shared/contract/variables";
import { effectsDir, EFFECTS_SOURCE } from "./src/effects/effects";
import { SIGNUP_RESULT_PAGES } from "./supabase/functions/_shared/contract/signup-result-pages";

// The manifest is configured before GraphQL exists, so it reads the brand file directly;
// everything on the pages comes through GraphQL. Gatsby can swallow an error thrown while it
// loads this file and carry on without plugins, so a broken brand.yaml stops the build here.
const brand = (() => {
  try {
    return readBrand();
  } catch (error) {
    console.error(`\n${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
})();

const config: GatsbyConfig = {
  siteMetadata: {
    title: brand.name,
    siteUrl: brand.siteUrl,
  },
  // `gatsby develop` (`npm run cms`) serves /admin/ with the same headers as the built site, with
  // the local backend's port (CMS_BACKEND_PORT, set by scripts/cms.ts) allowed to be called.
  developMiddleware: (app: {
    use(
      handler: (
        request: { path: string },
        response: { setHeader(name: string, value: string): void },
        next: () => void,
      ) => void,
    ): void;
  }) => {
    const headers = adminSecurityHeaders({
      localBackends: localBackendOrigins(readNumberVariable(process.env, "CMS_BACKEND_PORT")),
    });
    app.use((request, response, next) => {
      if (isAdminPath(request.path))
        for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
      next();
    });
  },
  graphqlTypegen: false,
  jsxRuntime: "automatic",
  trailingSlash: "always",
  plugins: [
    "gatsby-plugin-postcss",
    // gatsby-plugin-image's processing (AVIF, WebP, sizes, blurred placeholder) reaches the page
    // as gatsbyImageData through these two; its <GatsbyImage> component, and so the plugin entry
    // that serves it, is not used (see src/components/hero-picture.tsx).
    "gatsby-plugin-sharp",
    "gatsby-transformer-sharp",
    // content/ becomes one node per file through the one YAML reader (gatsby-node.ts, onCreateNode).
    // The Effects of the Day are sourced on their own, from EFFECTS_DIR (a test build reads its own
    // set): every file becomes an EffectFile node, and the pages are made for the days that have come.
    {
      resolve: "gatsby-source-filesystem",
      options: {
        name: "content",
        path: path.resolve("content"),
        ignore: [(file: string) => file.startsWith(path.resolve("content", "effects") + path.sep)],
      },
    },
    ...(existsSync(effectsDir())
      ? [{ resolve: "gatsby-source-filesystem", options: { name: EFFECTS_SOURCE, path: effectsDir() } }]
      : []),
    {
      resolve: "gatsby-source-filesystem",
      options: { name: "images", path: path.resolve("src/images") },
    },
    {
      resolve: "gatsby-plugin-manifest",
      options: {
        name: `${brand.name}: ${brand.hero.tagline}`,
        short_name: brand.name,
        description: brand.description,
        start_url: "/",
        lang: "en",
        background_color: "#1c1917",
        theme_color: "#1c1917",
        display: "standalone",
        icon: "src/images/icon.png",
      },
    },
    {
      resolve: "gatsby-plugin-sitemap",
      // The signup result pages only make sense as the answer to a form post.
      options: { excludes: ["/404/", "/404.html", "/dev-404-page/", ...Object.values(SIGNUP_RESULT_PAGES)] },
    },
  ],
};

export default config;

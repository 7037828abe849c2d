// Files webpack turns into URLs.
declare module "*.woff2" {
  const url: string;
  export default url;
}

// subset-font ships no types: the one call scripts/display-font.ts makes.
declare module "subset-font" {
  export default function subsetFont(
    font: Buffer,
    text: string,
    options?: { targetFormat?: "sfnt" | "woff" | "woff2" },
  ): Promise<Buffer>;
}

// The hero picture as plain `<picture>` HTML from gatsby-plugin-image's data.
import type { IGatsbyImageData } from "gatsby-plugin-image";

interface HeroPictureProps {
  /** gatsby-plugin-image's processed picture, from the page query's `gatsbyImageData`. */
  image: IGatsbyImageData;
  alt: string;
  className?: string;
}

/**
 * `fetchpriority="high"` as React 18 passes it through: it does not know the attribute yet, and
 * warns about the camel-cased `fetchPriority`.
 */
const HIGH_PRIORITY = { fetchpriority: "high" } as Record<string, string>;

/**
 * The hero picture as plain HTML: gatsby-plugin-image's AVIF, WebP and JPEG sources in several
 * widths, explicit dimensions (no layout shift), fetched at once and first (high priority, and
 * announced in the page's head by HeroPreload), with its blurred placeholder
 * behind it until the picture arrives. Its <GatsbyImage> component would download react-dom/server
 * (21.5 KB gzipped) on every first visit to hydrate this one picture, and keep the picture at
 * opacity 0 until a script has seen it load; this needs no script at all.
 */
export function HeroPicture({ image, alt, className = "" }: HeroPictureProps) {
  const { images, placeholder, width, height } = image;
  const fallback = images.fallback;
  if (!fallback) throw new Error("The hero picture has no fallback image: check its gatsbyImageData formats");
  return (
    <div
      className={`w-full overflow-hidden bg-cover bg-center ${className}`}
      style={{
        maxWidth: width,
        backgroundImage: placeholder?.fallback ? `url("${placeholder.fallback}")` : undefined,
      }}
    >
      <picture>
        {images.sources?.map((source) => (
          <source key={source.type} type={source.type} srcSet={source.srcSet} sizes={source.sizes} />
        ))}
        <img
          src={fallback.src}
          srcSet={fallback.srcSet}
          sizes={fallback.sizes}
          width={width}
          height={height}
          alt={alt}
          loading="eager"
          decoding="async"
          {...HIGH_PRIORITY}
          className="block h-auto w-full"
        />
      </picture>
    </div>
  );
}

/**
 * For the page's `<head>`: the hero picture's first source (AVIF), the one `<picture>` picks in a
 * browser that shows that format, announced before anything else is parsed so its download
 * starts with the HTML's first bytes, at high priority. The `type` makes a browser that would pick
 * another source skip it, so it is never fetched twice; the same `imagesrcset` and `imagesizes`
 * make it the very file the picture then takes.
 */
export function HeroPreload({ image }: { image: IGatsbyImageData }) {
  const source = image.images.sources?.[0];
  if (!source) return null;
  return (
    <link
      rel="preload"
      as="image"
      type={source.type}
      imageSrcSet={source.srcSet}
      imageSizes={source.sizes}
      {...HIGH_PRIORITY}
    />
  );
}

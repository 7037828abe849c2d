import { render } from "@testing-library/react";
import { readContent } from "../../../../test/support/content";
import type { Brand } from "../../../content/schema";
import { Seo } from "../seo";

const brand = readContent<Brand>("brand");
const meta = (container: HTMLElement, key: string) =>
  container.querySelector(`meta[property="${key}"], meta[name="${key}"]`)?.getAttribute("content");

describe("the Seo head tags", () => {
  it("give the home page its title, canonical address and a large social card", () => {
    const { container } = render(<Seo brand={brand} newsletterName="Effect of the Day" pathname="/" />);
    expect(container.querySelector("title")).toHaveTextContent(
      "The Purpose Effect | NO LIMITS. JUST PURPOSE.",
    );
    expect(container.querySelector('link[rel="canonical"]')).toHaveAttribute(
      "href",
      "https://thepurposeeffect.example/",
    );
    expect(meta(container, "og:image")).toBe("https://thepurposeeffect.example/social-card.png");
    expect(meta(container, "twitter:card")).toBe("summary_large_image");
    expect(meta(container, "description")).toBe(brand.description);
    expect(meta(container, "robots")).toBeUndefined();
    expect(meta(container, "og:url")).toBe("https://thepurposeeffect.example/");
  });

  it("name a page's own card, with its alt text, for Open Graph and Twitter alike", () => {
    const { container } = render(
      <Seo
        brand={brand}
        newsletterName="Effect of the Day"
        pathname="/effects/2026-11-21/"
        title="Show up first"
        image={{ path: "/effects/2026-11-21/card.png", alt: "Show up first, the Effect of the Day" }}
      />,
    );
    const card = "https://thepurposeeffect.example/effects/2026-11-21/card.png";
    expect(meta(container, "og:image")).toBe(card);
    expect(meta(container, "twitter:image")).toBe(card);
    expect(meta(container, "og:image:width")).toBe("1200");
    expect(meta(container, "og:image:height")).toBe("630");
    expect(meta(container, "og:image:alt")).toBe("Show up first, the Effect of the Day");
    expect(meta(container, "twitter:image:alt")).toBe("Show up first, the Effect of the Day");
    expect(meta(container, "twitter:card")).toBe("summary_large_image");
  });

  it("keep a page out of search results when asked, with its own title and no address of its own", () => {
    const { container } = render(
      <Seo
        brand={brand}
        newsletterName="Effect of the Day"
        pathname="/missing/"
        title="Page not found"
        noindex
      />,
    );
    expect(container.querySelector("title")).toHaveTextContent("Page not found | The Purpose Effect");
    expect(meta(container, "robots")).toBe("noindex");
    expect(container.querySelector('link[rel="canonical"]')).toBeNull();
    expect(meta(container, "og:url")).toBeUndefined();
  });

  it("write JSON-LD that parses back and cannot close its script element", () => {
    const data = { "@context": "https://schema.org", name: "</script><script>alert(1)</script>" };
    const { container } = render(
      <Seo brand={brand} newsletterName="Effect of the Day" pathname="/" structuredData={data} />,
    );
    const script = container.querySelector('script[type="application/ld+json"]')!;
    expect(script.innerHTML).not.toContain("</script>");
    expect(JSON.parse(script.textContent ?? "")).toEqual(data);
  });
});

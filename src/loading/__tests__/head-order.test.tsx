import { renderToStaticMarkup } from "react-dom/server";
import { preloadsFirst } from "../head-order";

const markup = (components: React.ReactNode[]) => renderToStaticMarkup(<>{components}</>);

it("moves the preloads after the metas and before the stylesheet, the picture's first", () => {
  const head = [
    <meta key="description" name="description" content="A movement" />,
    <style key="css" dangerouslySetInnerHTML={{ __html: "body{margin:0}" }} />,
    <link key="font" rel="preload" href="/anton.woff2" as="font" type="font/woff2" crossOrigin="anonymous" />,
    <title key="title">The Purpose Effect</title>,
    <link key="hero" rel="preload" as="image" type="image/avif" imageSrcSet="/hero.avif 360w" />,
    <link key="canonical" rel="canonical" href="https://example.org/" />,
  ];

  expect(markup(preloadsFirst(head))).toBe(
    '<meta name="description" content="A movement"/>' +
      '<link rel="preload" as="image" type="image/avif" imageSrcSet="/hero.avif 360w"/>' +
      '<link rel="preload" href="/anton.woff2" as="font" type="font/woff2" crossorigin="anonymous"/>' +
      "<style>body{margin:0}</style><title>The Purpose Effect</title>" +
      '<link rel="canonical" href="https://example.org/"/>',
  );
});

it("leaves a head without preloads as it is", () => {
  const head = [<meta key="a" name="a" content="1" />, <style key="b">{"p{}"}</style>];

  expect(preloadsFirst(head)).toEqual(head);
});

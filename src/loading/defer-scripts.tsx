// Gatsby's scripts put in an inert template, and the starter added.
import { isValidElement, type ReactNode } from "react";
import { STARTER_SCRIPT } from "./script-starter";
import { PAGE_PATH_DATA_ID, SCRIPTS_TEMPLATE_ID } from "./starter-names";

/** Gatsby renders its script elements (chunk map, compilation hash, runtime, framework, app) as this slice. */
const SCRIPTS_SLICE = "_gatsby-scripts";

const isScriptsSlice = (component: ReactNode): boolean =>
  isValidElement(component) && (component.props as { sliceId?: unknown }).sliceId === SCRIPTS_SLICE;

/** Gatsby's one inline script that differs from page to page: `window.pagePath="/effects/";`. */
const PAGE_PATH_SCRIPT = "gatsby-script-loader";

const isPagePathScript = (component: ReactNode, pathname: string): boolean => {
  if (!isValidElement(component)) return false;
  const props = component.props as { id?: unknown; dangerouslySetInnerHTML?: { __html?: unknown } };
  return (
    props.id === PAGE_PATH_SCRIPT &&
    props.dangerouslySetInnerHTML?.__html ===
      `/*<![CDATA[*/window.pagePath=${JSON.stringify(pathname)};/*]]>*/`
  );
};

/**
 * For `onPreRenderHTML`: the end of `<body>` with Gatsby's scripts held in an inert `<template>` and
 * the starter that copies them out when they are wanted (script-starter.ts). A page without the
 * scripts slice (`gatsby develop` renders its scripts differently) is left as it is.
 *
 * The page's path becomes data (`<script type="application/json">`, which no browser runs and the
 * CSP does not cover) that the starter hands to Gatsby: otherwise every page would add its own
 * script hash to the one Content-Security-Policy, and a year of daily Effects would take it past
 * what hosts accept (Cloudflare Pages: 2,000 characters a line). If Gatsby ever writes that script
 * differently, it is left as it is.
 */
export function deferScripts(postBody: ReactNode[], pathname: string): ReactNode[] {
  if (!postBody.some(isScriptsSlice)) return postBody;
  return [
    ...postBody.map((component) => {
      if (isScriptsSlice(component)) {
        return (
          <template key={SCRIPTS_TEMPLATE_ID} id={SCRIPTS_TEMPLATE_ID}>
            {component}
          </template>
        );
      }
      if (isPagePathScript(component, pathname)) {
        return (
          <script
            key={PAGE_PATH_DATA_ID}
            id={PAGE_PATH_DATA_ID}
            type="application/json"
            // `<` escaped so no path can close the element.
            dangerouslySetInnerHTML={{ __html: JSON.stringify(pathname).replace(/</g, "\\u003c") }}
          />
        );
      }
      return component;
    }),
    // A module: it runs once the document is parsed, in a task of its own. As a classic script it ran
    // inside the parser's task, which then also created the page's JavaScript context and compiled
    // it (traced on the archive: 2 to 5 ms, that Lighthouse's 4x CPU counts four times over).
    <script key="script-starter" type="module" dangerouslySetInnerHTML={{ __html: STARTER_SCRIPT }} />,
  ];
}

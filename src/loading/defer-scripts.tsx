import { isValidElement, type ReactNode } from "react";
import { STARTER_SCRIPT } from "./script-starter";
import { SCRIPTS_TEMPLATE_ID } from "./starter-names";

/** Gatsby renders its script elements (chunk map, compilation hash, runtime, framework, app) as this slice. */
const SCRIPTS_SLICE = "_gatsby-scripts";

const isScriptsSlice = (component: ReactNode): boolean =>
  isValidElement(component) && (component.props as { sliceId?: unknown }).sliceId === SCRIPTS_SLICE;

/**
 * For `onPreRenderHTML`: the end of `<body>` with Gatsby's scripts held in an inert `<template>` and
 * the starter that copies them out when they are wanted (script-starter.ts). A page without the
 * scripts slice (`gatsby develop` renders its scripts differently) is left as it is.
 */
export function deferScripts(postBody: ReactNode[]): ReactNode[] {
  if (!postBody.some(isScriptsSlice)) return postBody;
  return [
    ...postBody.map((component) =>
      isScriptsSlice(component) ? (
        <template key={SCRIPTS_TEMPLATE_ID} id={SCRIPTS_TEMPLATE_ID}>
          {component}
        </template>
      ) : (
        component
      ),
    ),
    <script key="script-starter" dangerouslySetInnerHTML={{ __html: STARTER_SCRIPT }} />,
  ];
}

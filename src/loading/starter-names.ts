/**
 * The names the script starter (script-starter.ts) shares with the page's code, apart from the
 * starter itself so the bundles that read them do not carry its text.
 */

/** The `<template>` holding Gatsby's script elements until they are wanted. */
export const SCRIPTS_TEMPLATE_ID = "gatsby-scripts";

/** The global a remembered click leaves for NewsletterProvider: the trigger's `data-signup-trigger` value. */
export const SIGNUP_WANTED = "___signupWanted";

/** The `<script type="application/json">` holding the page's path, which Gatsby reads as `window.pagePath`. */
export const PAGE_PATH_DATA_ID = "gatsby-page-path";

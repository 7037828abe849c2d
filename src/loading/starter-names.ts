/**
 * The names the script starter (script-starter.ts) shares with the page's code, apart from the
 * starter itself so the bundles that read them do not carry its text.
 */

/** The `<template>` holding Gatsby's script elements until they are wanted. */
export const SCRIPTS_TEMPLATE_ID = "gatsby-scripts";

/** The global a remembered click leaves for NewsletterProvider: the trigger's `data-signup-trigger` value. */
export const SIGNUP_WANTED = "___signupWanted";

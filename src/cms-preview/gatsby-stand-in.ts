/**
 * What the site's components import from "gatsby", for the editor's preview bundle
 * (build/cms-admin.ts), which renders them outside Gatsby: their GraphQL fragments are for the
 * build and mean nothing here.
 */
export const graphql = (): string => "";

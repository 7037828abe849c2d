/** The one HTML escaper, for text and double-quoted attribute values (the site's mail edition and every mail). No imports. */
export const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

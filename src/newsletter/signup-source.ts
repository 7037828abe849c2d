/**
 * Where a visit began, carried to the signup forms without cookies. SIGNUP_SOURCE_SCRIPT is an
 * inline module at the end of every page (`gatsby-ssr.tsx`), so it runs on every full page load
 * once the document is parsed, whether Gatsby's scripts have started or ever will:
 *  - a page reached from another site (its `document.referrer` names another host), or whose
 *    address carries `utm_source`, `utm_medium` or `utm_campaign`, begins a visit: it records the
 *    referring site's host (never its address) and those `utm_*` values in the tab's
 *    `sessionStorage` (not a cookie: nothing is sent with any request, and it ends with the tab);
 *  - any other page keeps what the visit's first page recorded (a page whose tab holds no record,
 *    opened from one of ours, takes the `utm_*` of the address it came from);
 *  - when a signup form (one with a `signup_form` field) is submitted, those values are put into it
 *    as hidden fields, just before the page's own handler reads the form (it sends the form's
 *    fields as JSON: signup-form.tsx) or the browser posts it (before the scripts start).
 * The module itself keeps the address's query and the referrer as the page was loaded (Gatsby's
 * scripts may later move to another page without a new document) and adds its listeners. They
 * are parsed, the tab's storage read and the record written later (`settle`), once: when the
 * browser is first idle (at most a second on), when a form is submitted, or when the page is left
 * (`pagehide`), whichever comes first. A tab's first use of `sessionStorage` asks the browser's own
 * process, and the first use of `URL` and `URLSearchParams` sets up their bindings: a few
 * milliseconds here, in the task that also runs the script starter and DOMContentLoaded, which on
 * a slow phone was then a long one.
 * Values longer than the function keeps are left out, so a long one cannot push the body past its
 * limit; the function checks the rest (`contract/signup-source.ts`). Gatsby's client-side moves
 * between pages run none of this: the document, and so the form filler, stays.
 *
 * Plain ES5 in a string, as the script starter is (src/loading/script-starter.ts); its exact text
 * is hashed into the Content-Security-Policy (site-headers/security-headers.ts).
 */
import { SIGNUP_SOURCE_MAX_CHARS, UTM_FIELDS } from "../../supabase/functions/_shared/contract/signup-source";

/** The tab's record of where its visit began: `{"referrer_host": ..., "utm_source": ...}`. */
export const SIGNUP_SOURCE_KEY = "signup-source";

const maxChars = JSON.stringify({
  referrer_host: SIGNUP_SOURCE_MAX_CHARS.referrer_host,
  utm_source: SIGNUP_SOURCE_MAX_CHARS.utm_source,
  utm_medium: SIGNUP_SOURCE_MAX_CHARS.utm_medium,
  utm_campaign: SIGNUP_SOURCE_MAX_CHARS.utm_campaign,
});

export const SIGNUP_SOURCE_SCRIPT = `(function () {
  var w = window, max = ${maxChars}, search = location.search, from = document.referrer;
  var record = null, settled = false;
  function settle() {
    if (settled) return record;
    settled = true;
    var key = "${SIGNUP_SOURCE_KEY}", utm = ${JSON.stringify(UTM_FIELDS)};
    var here = {}, campaign = false, referrer, params, i;
    function keep(name, value) {
      if (value && value.length <= max[name]) here[name] = value;
    }
    try {
      referrer = new URL(from);
    } catch (error) {}
    params = new URLSearchParams(search);
    for (i = 0; i < utm.length; i++) {
      if (params.has(utm[i])) campaign = true;
      keep(utm[i], params.get(utm[i]));
    }
    if (referrer && referrer.hostname && referrer.host !== location.host) keep("referrer_host", referrer.hostname);
    if (!campaign && !here.referrer_host) {
      try {
        record = JSON.parse(w.sessionStorage.getItem(key));
      } catch (error) {}
      if (record) return record;
      if (referrer) {
        params = new URLSearchParams(referrer.search);
        for (i = 0; i < utm.length; i++) keep(utm[i], params.get(utm[i]));
      }
    }
    record = here;
    try {
      w.sessionStorage.setItem(key, JSON.stringify(record));
    } catch (error) {}
    return record;
  }
  if (w.requestIdleCallback) w.requestIdleCallback(settle, { timeout: 1000 });
  else setTimeout(settle, 0);
  w.addEventListener("pagehide", settle);
  w.addEventListener("submit", function (event) {
    var form = event.target, found = settle(), name, field;
    if (!form.elements || !form.elements.signup_form) return;
    for (name in found) {
      if (!max.hasOwnProperty(name) || typeof found[name] !== "string") continue;
      field = form.elements[name];
      if (!field) {
        field = document.createElement("input");
        field.type = "hidden";
        field.name = name;
        form.appendChild(field);
      }
      field.value = found[name];
    }
  }, true);
})();`;

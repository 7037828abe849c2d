/**
 * Gatsby's scripts wait for the page to paint, then come by themselves. The pre-rendered HTML
 * already shows everything on the first screen, so React and Gatsby's runtime (about 75 KB
 * gzipped) are not fetched while the page paints: `gatsby-ssr.tsx` puts Gatsby's script elements
 * inside an inert `<template id="gatsby-scripts">` and adds STARTER_SCRIPT, which copies them into
 * the document
 *  - when the browser is first idle after `load`, once it has shown its first contentful frame
 *    and decoded the picture fetched first (the hero's `fetchpriority="high"`), and drawn two
 *    frames since, so the largest element is on the screen: a fresh Chromium fires `load` and
 *    finds idle moments before it shows anything in about half the loads here, and in a
 *    Lighthouse trace React's 43 KB then downloaded before the picture was shown. At most
 *    IDLE_TIMEOUT_MS for all that, and none of it in a hidden tab. They arrive while the visitor
 *    reads and the first tap is answered at once; or
 *  - at once on a click on a signup trigger (below), or
 *  - at once when the address carries a mail link (`?confirm=`, `?unsubscribe=`): that screen
 *    exists only with them.
 * Chosen by measurement (`npm run bench:strategies`, bench/RESULTS.md): on a phone (150 ms round
 * trip, 1.6 Mbps, CPU 4x slower) a tap 1 s or 3 s after `load` opens the dialog in well under
 * 100 ms this way; fetching them on the first interaction took over a second, and prefetching
 * them at idle but running them on the first interaction about 600 ms.
 *
 * A click on a signup trigger (`<a data-signup-trigger href="#newsletter">`, see
 * signup-trigger.tsx) made before React has taken over is remembered in SIGNUP_WANTED and the
 * trigger shows it is working (`aria-busy`); NewsletterProvider opens the dialog when it mounts.
 * If the scripts fail to load, or take longer than TRIGGER_FALLBACK_MS, the link does what it
 * does without JavaScript: it leads to the inline card. Without JavaScript none of this runs and
 * every trigger is a plain link to the card.
 *
 * Plain ES5 in a string, run as an inline module (defer-scripts.tsx): after the document is
 * parsed, before any bundle, in every browser that runs Gatsby's bundles. Its exact text is hashed
 * into the Content-Security-Policy (site-headers/security-headers.ts).
 */
import { PAGE_PATH_DATA_ID, SCRIPTS_TEMPLATE_ID, SIGNUP_WANTED } from "./starter-names";

/** How long a remembered click waits for the scripts before the link leads to the card instead. */
export const TRIGGER_FALLBACK_MS = 10_000;

/**
 * The longest the scripts wait after `load` for the first paint, and then for an idle moment (a page
 * that paints nothing, or is kept busy, gets them anyway).
 */
export const IDLE_TIMEOUT_MS = 2_000;

export const STARTER_SCRIPT = `(function () {
  var w = window, d = document, started = false, failed = false;
  function toCard(trigger) {
    trigger.removeAttribute("aria-busy");
    var card = d.getElementById(trigger.getAttribute("href").slice(1));
    if (card) card.scrollIntoView();
    if (w.history && history.replaceState) history.replaceState(history.state, "", trigger.getAttribute("href"));
  }
  function fail() {
    failed = true;
    var wanted = w.${SIGNUP_WANTED};
    delete w.${SIGNUP_WANTED};
    var trigger = wanted && d.querySelector('a[data-signup-trigger="' + wanted + '"]');
    if (trigger) toCard(trigger);
  }
  function start() {
    if (started) return;
    started = true;
    var template = d.getElementById("${SCRIPTS_TEMPLATE_ID}");
    if (!template || !template.content) return;
    var pagePath = d.getElementById("${PAGE_PATH_DATA_ID}");
    if (pagePath) w.pagePath = JSON.parse(pagePath.textContent);
    var scripts = template.content.querySelectorAll("script");
    for (var j = 0; j < scripts.length; j++) {
      var old = scripts[j], copy = d.createElement("script");
      if (old.id) copy.id = old.id;
      if (old.hasAttribute("src")) {
        copy.src = old.getAttribute("src");
        copy.async = true;
        copy.onerror = fail;
      } else {
        copy.text = old.text;
      }
      d.body.appendChild(copy);
    }
  }
  d.addEventListener("click", function (event) {
    var trigger = event.target && event.target.closest && event.target.closest("a[data-signup-trigger]");
    if (!trigger || failed) return;
    event.preventDefault();
    w.${SIGNUP_WANTED} = trigger.getAttribute("data-signup-trigger");
    trigger.setAttribute("aria-busy", "true");
    start();
    setTimeout(function () {
      if (w.${SIGNUP_WANTED}) fail();
    }, ${TRIGGER_FALLBACK_MS});
  }, true);
  function afterPaint() {
    var begun = false, waiting = 2;
    function begin() {
      if (begun) return;
      begun = true;
      whenIdle();
    }
    setTimeout(begin, ${IDLE_TIMEOUT_MS});
    if (d.visibilityState === "hidden" || !w.requestAnimationFrame) return begin();
    function ready() {
      if (--waiting > 0) return;
      w.requestAnimationFrame(function () {
        w.requestAnimationFrame(function () {
          setTimeout(begin, 0);
        });
      });
    }
    var P = w.PerformanceObserver, types = P && P.supportedEntryTypes;
    if (types && types.indexOf("paint") >= 0) {
      try {
        var observer = new P(function (list) {
          if (!list.getEntriesByName("first-contentful-paint").length) return;
          observer.disconnect();
          ready();
        });
        observer.observe({ type: "paint", buffered: true });
      } catch (error) {
        ready();
      }
    } else ready();
    var picture = d.querySelector('img[fetchpriority="high"]');
    if (picture && picture.decode) picture.decode().then(ready, ready);
    else ready();
  }
  function whenIdle() {
    if (w.requestIdleCallback) w.requestIdleCallback(start, { timeout: ${IDLE_TIMEOUT_MS} });
    else setTimeout(start, 0);
  }
  if (/[?&](confirm|unsubscribe)=/.test(location.search)) start();
  else if (d.readyState === "complete") afterPaint();
  else w.addEventListener("load", afterPaint);
})();`;

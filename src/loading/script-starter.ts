/**
 * Gatsby's scripts wait for the page to paint, then come by themselves. The pre-rendered HTML
 * already shows everything on the first screen, so React and Gatsby's runtime (about 75 KB
 * gzipped) are not fetched while the page paints: `gatsby-ssr.tsx` puts Gatsby's script elements
 * inside an inert `<template id="gatsby-scripts">` and adds STARTER_SCRIPT, which copies them into
 * the document
 *  - when the browser is first idle after `load`, once it has shown its first contentful frame
 *    and the picture fetched first (the hero's `fetchpriority="high"`): a fresh Chromium fires
 *    `load` and finds idle moments before it shows anything in about half the loads here, and in
 *    a Lighthouse trace React's 43 KB then downloaded before the picture was shown. The picture
 *    counts as shown at its own `largest-contentful-paint` entry, which the browser gives once the
 *    frame holding it is on the screen. Where there is none to wait for (no such entries, an input
 *    or scroll has ended them, or something larger is already the largest element, so the
 *    picture never will be), at two frames after the picture is decoded: on a machine whose
 *    cores are all busy Chromium can present the picture's frame after those two frames.
 *    At most IDLE_TIMEOUT_MS for all that, and none of it in a hidden tab. They arrive while the
 *    visitor reads and the first tap is answered at once; or
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
 * The scripts are put in the document one a task (a message to itself between them): each one's
 * fetch, and an inline one's compiling, costs the main thread a few milliseconds, and on a slow
 * phone the five in one task were one long task (issue 41). They download together but run in the
 * page's order, each in a task of its own (`async = false`): webpack's runtime first, then React's
 * file, whose run also runs React DOM's modules (build/react-first.ts), then Gatsby's, whose run
 * starts Gatsby. The start's work is split between the two big files' tasks, whichever arrives
 * last.
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
    var scripts = template.content.querySelectorAll("script"), j = 0;
    var channel = new MessageChannel();
    channel.port1.onmessage = function () {
      var old = scripts[j++], copy = d.createElement("script");
      if (old.id) copy.id = old.id;
      if (old.hasAttribute("src")) {
        copy.src = old.getAttribute("src");
        copy.async = false;
        copy.onerror = fail;
      } else {
        copy.text = old.text;
      }
      d.body.appendChild(copy);
      if (j < scripts.length) channel.port2.postMessage(0);
    };
    if (scripts.length) channel.port2.postMessage(0);
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
    // Both the first contentful frame and the picture are on the screen: the browser reports
    // each once the frame holding it is presented.
    function ready() {
      if (--waiting === 0) setTimeout(begin, 0);
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
    if (!picture || !picture.decode) return ready();
    var shown = false, largest = 0, lcp = types && types.indexOf("largest-contentful-paint") >= 0;
    function pictureShown() {
      if (shown) return;
      shown = true;
      ready();
    }
    if (lcp) {
      try {
        new P(function (list) {
          var entries = list.getEntries();
          for (var i = 0; i < entries.length; i++) {
            var entry = entries[i];
            largest = Math.max(largest, entry.size);
            if (entry.element === picture || (entry.url && entry.url === picture.currentSrc)) pictureShown();
          }
        }).observe({ type: "largest-contentful-paint", buffered: true });
        // The browser reports no largest paint after these.
        var inputs = ["pointerdown", "keydown", "wheel", "scroll"];
        for (var k = 0; k < inputs.length; k++) w.addEventListener(inputs[k], pictureShown, { capture: true, passive: true });
      } catch (error) {
        lcp = false;
      }
    }
    // The area the browser would count for the picture: what of it is on the screen, less when it
    // is drawn larger than its file.
    function pictureArea() {
      var box = picture.getBoundingClientRect(), shownArea = box.width * box.height;
      var onScreen = Math.max(0, Math.min(box.right, w.innerWidth) - Math.max(box.left, 0)) *
        Math.max(0, Math.min(box.bottom, w.innerHeight) - Math.max(box.top, 0));
      return shownArea ? onScreen * Math.min(1, (picture.naturalWidth * picture.naturalHeight) / shownArea) : 0;
    }
    function decoded() {
      w.requestAnimationFrame(function () {
        w.requestAnimationFrame(function () {
          if (!lcp || largest >= pictureArea()) pictureShown();
        });
      });
    }
    picture.decode().then(decoded, decoded);
  }
  function whenIdle() {
    if (w.requestIdleCallback) w.requestIdleCallback(start, { timeout: ${IDLE_TIMEOUT_MS} });
    else setTimeout(start, 0);
  }
  if (/[?&](confirm|unsubscribe)=/.test(location.search)) start();
  else if (d.readyState === "complete") afterPaint();
  // A task of its own: \`load\` often comes in the task that ran the page's modules and its
  // DOMContentLoaded, which on a slow phone is then long enough without this work.
  else w.addEventListener("load", function () {
    setTimeout(afterPaint, 0);
  });
})();`;

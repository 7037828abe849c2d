/* global window, document */
// The site's side of the editor's GitHub sign-in (build/cms-sign-in-pages.ts writes the pages).
// On /admin/sign-in/ it forwards Decap's popup, query and all, to the cms-auth function. On
// /admin/signed-in/ it reads what cms-auth sent in the address fragment, takes the fragment out of
// the address and the history at once, exchanges a one-time code for the token with a POST, and
// hands the token to the window that opened it, on this site's origin only, with Decap's handshake
// (`authorizing:github`, then `authorization:github:success:{...}`).
"use strict";

(function () {
  var PROVIDER = "github";
  var root = document.documentElement;
  var functions = root.getAttribute("data-functions");

  // Which page this is, from the page itself (a host may serve it with or without the slash).
  if (root.getAttribute("data-step") === "forward") {
    // The origin the editor is on: cms-auth ends the sign-in there (if it is one of the site's).
    var query = window.location.search ? window.location.search + "&" : "?";
    window.location.replace(
      functions + "/cms-auth" + query + "origin=" + encodeURIComponent(window.location.origin),
    );
    return;
  }

  var reasons = JSON.parse(document.getElementById("reasons").textContent);
  var params = new URLSearchParams(window.location.hash.slice(1));
  window.history.replaceState(null, "", window.location.pathname);
  var title = document.getElementById("title");
  var message = document.getElementById("message");
  var say = function (heading, text) {
    title.textContent = heading;
    message.textContent = text;
  };
  var opener = window.opener;
  var origin = window.location.origin;

  // Decap answers the handshake from the editor's window; only then has it the message.
  var tell = function (text, done) {
    var answered = false;
    window.addEventListener("message", function (event) {
      if (event.origin !== origin || event.source !== opener) return;
      if (event.data !== "authorizing:" + PROVIDER || answered) return;
      answered = true;
      opener.postMessage(text, origin);
      if (done) done();
    });
    opener.postMessage("authorizing:" + PROVIDER, origin);
    window.setTimeout(function () {
      if (!answered) say("Not signed in", reasons.no_answer);
    }, 10000);
  };
  var refuse = function (reason) {
    var text = reasons[reason] || reasons.malformed;
    say("Sign-in refused", text);
    if (opener) tell("authorization:" + PROVIDER + ":error:" + JSON.stringify({ message: text }));
  };

  var code = params.get("code");
  if (!code) return refuse(params.get("error"));
  if (!opener) return say("Not signed in", reasons.no_opener);

  fetch(functions + "/cms-auth/token", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code: code }),
    credentials: "omit",
    cache: "no-store",
  })
    .then(function (response) {
      return response.json().then(function (body) {
        return { ok: response.ok, body: body };
      });
    })
    .then(
      function (answer) {
        if (!answer.ok || typeof answer.body.token !== "string") return refuse("code_used");
        say("Signed in", "You are signed in. This window closes by itself; if it does not, close it.");
        tell(
          "authorization:" +
            PROVIDER +
            ":success:" +
            JSON.stringify({ token: answer.body.token, provider: PROVIDER }),
        );
      },
      function () {
        refuse("unavailable");
      },
    );
})();

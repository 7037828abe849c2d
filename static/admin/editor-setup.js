/* global window, document, CMS, createClass, h, jsyaml */
// Starts Decap CMS with what the Effects of the Day need: an Effect's file is named by its day
// (content/effects/YYYY-MM-DD.yaml) and holds only its title, summary and body, so the day is asked
// for once, names the file, and is left out of what is written.
// A file, not an inline script: /admin/ keeps a Content-Security-Policy without 'unsafe-inline'.
"use strict";

window.CMS_MANUAL_INIT = true;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = resolve;
    script.onerror = () => reject(new Error(`Could not load ${src}`));
    document.head.appendChild(script);
  });
}

function isRealDay(value) {
  if (!DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

function registerEffectDay() {
  // A new Effect asks for its day; a saved one shows the day its file name carries.
  const EffectDayControl = createClass({
    isValid() {
      if (!this.props.entry.get("newRecord")) return true;
      const value = this.props.value || "";
      return isRealDay(value) || { error: { message: "Choose the day this Effect is for (YYYY-MM-DD)." } };
    },
    render() {
      const { entry, forID, classNameWrapper, value, onChange, setActiveStyle, setInactiveStyle } =
        this.props;
      if (!entry.get("newRecord")) {
        return h("p", { id: forID, className: classNameWrapper }, entry.get("slug"));
      }
      return h("input", {
        id: forID,
        type: "date",
        className: classNameWrapper,
        value: value || "",
        onChange: (event) => onChange(event.target.value),
        onFocus: setActiveStyle,
        onBlur: setInactiveStyle,
      });
    },
  });
  CMS.registerWidget("effect-day", EffectDayControl);

  const FIELDS = ["title", "summary", "body"];
  CMS.registerCustomFormat("effect-yaml", "yaml", {
    fromFile: (content) => jsyaml.load(content) || {},
    toFile: (data) => {
      const kept = {};
      for (const name of FIELDS) if (data[name] !== undefined) kept[name] = data[name];
      return jsyaml.dump(kept, { lineWidth: -1 });
    },
  });
}

/**
 * `npm run cms` prints this page's address with `#cms-backend=PORT&cms-token=TOKEN`: the local
 * backend answers only with this run's token. It is kept for this tab (sessionStorage) and taken
 * out of the address before the CMS reads the address for its own routes.
 */
function localBackend() {
  const KEY = "purpose-effect-local-backend";
  const found = /^#cms-backend=(\d{1,5})&cms-token=([A-Za-z0-9_-]{20,})$/.exec(window.location.hash);
  if (found) {
    window.sessionStorage.setItem(KEY, JSON.stringify({ port: found[1], token: found[2] }));
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  try {
    return JSON.parse(window.sessionStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
}

/**
 * The configuration the build wrote (config.yml), with what only the page knows: the local backend
 * of this run (else none, and the CMS signs in with GitHub), and where cms-auth is when the site
 * and the functions share an origin (the local stack).
 */
async function loadConfig() {
  const response = await fetch("/admin/config.yml", { cache: "no-cache" });
  if (!response.ok) throw new Error(`/admin/config.yml answered ${response.status}`);
  const config = jsyaml.load(await response.text());
  if (!config.backend.base_url) config.backend.base_url = window.location.origin;
  const local = localBackend();
  const onThisMachine = ["localhost", "127.0.0.1"].includes(window.location.hostname);
  config.local_backend =
    local && onThisMachine
      ? { url: `http://${window.location.hostname}:${local.port}/api/v1?token=${local.token}` }
      : false;
  config.load_config_file = false;
  return config;
}

loadScript("/admin/js-yaml.min.js")
  .then(() => Promise.all([loadConfig(), loadScript("/admin/decap-cms.js")]))
  // The preview pane's templates (src/cms-preview/previews.tsx) register themselves with the CMS.
  .then(([config]) => loadScript("/admin/previews.js").then(() => config))
  .then((config) => {
    registerEffectDay();
    CMS.init({ config });
  })
  .catch((error) => {
    document.body.textContent = `The content editor did not load: ${error.message}. Reload the page.`;
    throw error;
  });

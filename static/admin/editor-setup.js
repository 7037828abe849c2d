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
    fromFile: (content) => jsyaml.safeLoad(content) || {},
    toFile: (data) => {
      const kept = {};
      for (const name of FIELDS) if (data[name] !== undefined) kept[name] = data[name];
      return jsyaml.safeDump(kept, { lineWidth: -1 });
    },
  });
}

loadScript("/admin/js-yaml.min.js")
  .then(() => loadScript("/admin/decap-cms.js"))
  .then(() => {
    registerEffectDay();
    CMS.init();
  })
  .catch((error) => {
    document.body.textContent = `The content editor did not load: ${error.message}. Reload the page.`;
    throw error;
  });

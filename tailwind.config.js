/** @type {import('tailwindcss').Config} */
module.exports = {
  content: ["./src/**/*.{ts,tsx}"],
  theme: {
    extend: {
      colors: {
        ink: { DEFAULT: "#1c1917", soft: "#292524" },
        cream: { DEFAULT: "#faf6f0", deep: "#f3ece1" },
        // text: the link colour on cream in the Effects (4.5:1 and more)
        ember: { DEFAULT: "#f59e0b", bright: "#fbbf24", deep: "#b45309", text: "#92400e" },
      },
      keyframes: {
        "fade-in": { from: { opacity: "0" }, to: { opacity: "1" } },
        "rise-in": {
          from: { opacity: "0", transform: "translateY(12px)" },
          to: { opacity: "1", transform: "none" },
        },
      },
      fontFamily: {
        // Impact (Windows, macOS) until Anton is there, else the system's sans-serif. Each name the
        // browser must look for and does not find costs the first layout a font lookup.
        display: ["Anton", "Impact", "sans-serif"],
        sans: ["system-ui", "-apple-system", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "sans-serif"],
      },
    },
  },
  plugins: [],
};

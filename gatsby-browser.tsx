import "@fontsource/anton/latin-400.css";
import "@fontsource-variable/inter/wght.css";
import "./src/styles/global.css";

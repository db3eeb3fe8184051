// Scripts only some pages use, fetched when such a page is shown: MathJax (1.2 MB) where the page has
// math (the spans arithmatex writes), the map's script where it has the map. Listed for every page,
// they cost every page their download and parsing (Lighthouse's total blocking time) whether or not
// it used them. Material's instant navigation swaps pages without running scripts again, so the page
// is looked at on every `document$` emission; each script is added once and stays for later pages
// (MathJax typesets the page it arrives on by itself; javascripts/mathjax.js typesets the next ones,
// and map.js draws every map page it sees). A site opened from disk (file://) gets no instant
// navigation and its document$ may never emit: the page as loaded is looked at too.
(() => {
  "use strict";

  // The site's root, from this script's own address (javascripts/on-demand.js), resolved once.
  const script = document.currentScript;
  const ROOT = new URL("../", script ? script.src : location.href);
  const SCRIPTS = [
    { needed: ".arithmatex", src: "assets/mathjax/tex-mml-chtml.js" },
    { needed: ".paper-map[data-src]", src: "javascripts/map.js" },
  ];
  const added = new Set();

  function load() {
    for (const { needed, src } of SCRIPTS) {
      if (added.has(src) || !document.querySelector(needed)) continue;
      added.add(src);
      const element = document.createElement("script");
      element.src = new URL(src, ROOT).href;
      element.async = true;
      document.head.append(element);
    }
  }

  if (typeof document$ !== "undefined") document$.subscribe(load);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();

// MathJax settings for pymdownx.arithmatex (generic mode). MathJax itself is served from
// assets/mathjax/, copied from a Python package at build time, so no page loads a CDN.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
};

// Material's instant navigation swaps page content without reloading scripts, so typeset again
// after every page change. On the first load MathJax typesets by itself once it has started.
document$.subscribe(() => {
  if (window.MathJax && MathJax.startup && MathJax.startup.output && MathJax.typesetPromise) {
    MathJax.startup.output.clearCache();
    MathJax.typesetClear();
    MathJax.texReset();
    MathJax.typesetPromise();
  }
});

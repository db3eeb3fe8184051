// The paper map. On the page that holds <div class="paper-map" data-src="…" data-root="…">, this
// loads the point data written by the generator (assets/paper-map.js, part of the site, never a
// CDN) and draws it as an SVG: one link per paper, coloured by topic, with the topics named where
// their papers gather. Scroll or the buttons zoom, dragging moves, a box finds papers by title.
// URL fragments "#paper=SLUG" and "#topic=SLUG" (linked from paper and topic pages) pick one out;
// a picked paper is named beside its point. On a touch screen a first tap shows a title, a second opens.
(function () {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const SIZE = 1000; // viewBox units; the data lies in the unit square
  const MARGIN = 24;
  const POINT_RADIUS = 4.5; // in screen pixels at any zoom
  const LABEL_SIZE = 13;
  const MAX_ZOOM = 40;
  const PICKED_ZOOM = 3; // close enough to tell a paper's neighbours apart at a few thousand papers
  const DRAG_THRESHOLD = 4; // pixels a press may move and still count as a click

  const STYLE = `
.paper-map { position: relative; margin: 1em 0; font-size: .75rem; }
.paper-map__bar { display: flex; flex-wrap: wrap; gap: .5em; align-items: center; margin-bottom: .5em; }
.paper-map__bar input { flex: 1 1 14em; padding: .35em .6em; font: inherit; color: inherit;
  background: var(--md-default-bg-color); border: 1px solid var(--md-default-fg-color--lighter); border-radius: .2em; }
.paper-map__bar button { min-width: 2.2em; padding: .3em .6em; font: inherit; color: inherit; cursor: pointer;
  background: var(--md-default-fg-color--lightest); border: 0; border-radius: .2em; }
.paper-map__count { color: var(--md-default-fg-color--light); }
.paper-map svg { display: block; width: 100%; height: min(70vh, 100vw); cursor: grab; touch-action: none;
  border: 1px solid var(--md-default-fg-color--lightest); border-radius: .2em; background: var(--md-default-bg-color); }
.paper-map svg.is-dragging { cursor: grabbing; }
.paper-map circle { stroke: var(--md-default-bg-color); stroke-opacity: .7; transition: opacity .15s; }
.paper-map a:hover circle, .paper-map circle.is-picked { stroke: var(--md-default-fg-color); stroke-opacity: 1; }
.paper-map svg.is-filtered circle:not(.is-match) { opacity: .12; }
.paper-map text { pointer-events: none; font-weight: 700; fill: var(--md-default-fg-color);
  stroke: var(--md-default-bg-color); stroke-linejoin: round; paint-order: stroke; }
.paper-map svg.is-filtered text:not(.is-match):not(.paper-map__picked) { opacity: .25; }
.paper-map__tip { position: absolute; z-index: 2; max-width: 24em; padding: .4em .6em; pointer-events: none;
  background: var(--md-default-bg-color); box-shadow: var(--md-shadow-z2); border-radius: .2em; }
.paper-map__tip small { display: block; color: var(--md-default-fg-color--light); }
.paper-map__legend { display: flex; flex-wrap: wrap; gap: .2em 1.2em; margin-top: .8em; }
.paper-map__legend .is-active a { font-weight: 700; }
.paper-map__swatch { display: inline-block; width: .8em; height: .8em; margin-right: .35em; border-radius: 50%;
  vertical-align: -.05em; }
`;

  function element(name, attributes, parent, namespace) {
    const node = namespace ? document.createElementNS(namespace, name) : document.createElement(name);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  // Hues a golden angle apart, so topics with neighbouring numbers never look alike.
  function topicColour(index) {
    if (index < 0) return "hsl(0 0% 55%)";
    return `hsl(${(index * 137.508) % 360} 70% ${index % 2 ? 38 : 50}%)`;
  }

  function slugOf(url) {
    return url.replace(/(\/index)?\.html$|\/$/, "").split("/").pop();
  }

  function addStyle() {
    if (document.getElementById("paper-map-style")) return;
    element("style", { id: "paper-map-style" }, document.head).textContent = STYLE;
  }

  function draw(host, data) {
    const root = host.dataset.root || "";
    const papers = data.papers.map(([x, y, topic, title, url], index) => ({
      index, topic, title, url: root + url, slug: slugOf(url),
      x: MARGIN + x * (SIZE - 2 * MARGIN), y: MARGIN + y * (SIZE - 2 * MARGIN),
    }));
    const topics = data.topics.map((topic, index) => ({ ...topic, index, url: root + topic.url, members: [] }));
    for (const paper of papers) if (topics[paper.topic]) topics[paper.topic].members.push(paper);

    host.textContent = "";
    const bar = element("div", { class: "paper-map__bar" }, host);
    const search = element("input", { type: "search", placeholder: "Find papers by title", "aria-label": "Find papers by title" }, bar);
    const count = element("span", { class: "paper-map__count", "aria-live": "polite" }, bar);
    const zoomIn = element("button", { type: "button", title: "Zoom in" }, bar);
    const zoomOut = element("button", { type: "button", title: "Zoom out" }, bar);
    const reset = element("button", { type: "button", title: "Show all papers" }, bar);
    zoomIn.textContent = "+";
    zoomOut.textContent = "−";
    reset.textContent = "Reset";

    const svg = element("svg", { viewBox: `0 0 ${SIZE} ${SIZE}`, role: "img",
      "aria-label": `Map of ${papers.length} papers coloured by topic` }, host, SVG);
    const view = element("g", {}, svg, SVG);
    const pointLayer = element("g", {}, view, SVG);
    const labelLayer = element("g", {}, view, SVG);
    const tip = element("div", { class: "paper-map__tip", hidden: "" }, host);

    const circles = papers.map((paper) => {
      const link = element("a", { href: paper.url, tabindex: "-1" }, pointLayer, SVG);
      const circle = element("circle", { cx: paper.x.toFixed(1), cy: paper.y.toFixed(1),
        fill: topicColour(paper.topic), "data-index": paper.index }, link, SVG);
      return circle;
    });

    // Each topic is named at the median of its papers, where most of them are.
    const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const labels = topics.filter((t) => t.members.length).map((topic) => {
      const text = element("text", { x: median(topic.members.map((p) => p.x)), y: median(topic.members.map((p) => p.y)),
        "text-anchor": "middle", "dominant-baseline": "middle", "data-topic": topic.index }, labelLayer, SVG);
      text.textContent = topic.label.split(" · ")[0];
      return text;
    });

    // Plain elements, not a list: the theme's list styles would win over the legend's layout.
    const legend = element("div", { class: "paper-map__legend" }, host);
    const legendItems = topics.map((topic) => {
      const item = element("span", { "data-topic": topic.index }, legend);
      element("span", { class: "paper-map__swatch", style: `background:${topicColour(topic.index)}` }, item);
      const link = element("a", { href: topic.url }, item);
      link.textContent = topic.label;
      item.append(` (${topic.members.length})`);
      item.addEventListener("mouseenter", () => highlight((p) => p.topic === topic.index, topic.index));
      item.addEventListener("mouseleave", () => restoreHighlight());
      return item;
    });

    // --- zoom and pan: one transform on the group; points and labels keep their screen size ----------
    let zoom = { k: 1, x: 0, y: 0 };
    let frame = 0;
    let pickedLabel = null; // { text, paper }: the name of the paper picked by "#paper="
    function render() {
      frame = 0;
      view.setAttribute("transform", `translate(${zoom.x} ${zoom.y}) scale(${zoom.k})`);
      const box = svg.getBoundingClientRect();
      const unit = SIZE / (Math.min(box.width, box.height) || SIZE) / zoom.k; // viewBox units per pixel
      for (const circle of circles) {
        circle.setAttribute("r", (POINT_RADIUS * unit).toFixed(2));
        circle.setAttribute("stroke-width", unit.toFixed(2));
      }
      for (const label of labels) {
        label.setAttribute("font-size", (LABEL_SIZE * unit).toFixed(2));
        label.setAttribute("stroke-width", (3 * unit).toFixed(2));
      }
      if (pickedLabel) {
        pickedLabel.text.setAttribute("x", (pickedLabel.paper.x + 2 * POINT_RADIUS * unit).toFixed(2));
        pickedLabel.text.setAttribute("font-size", (LABEL_SIZE * unit).toFixed(2));
        pickedLabel.text.setAttribute("stroke-width", (3 * unit).toFixed(2));
      }
      placeLabels();
    }
    // A topic name that would cover a bigger topic's name (or a highlighted one) is hidden until
    // zooming in makes room for it.
    function placeLabels() {
      const placed = pickedLabel ? [pickedLabel.text.getBBox()] : [];
      const highlighted = labels.filter((label) => label.classList.contains("is-match"));
      for (const label of [...highlighted, ...labels.filter((l) => !highlighted.includes(l))]) {
        const box = label.getBBox();
        const covers = placed.some((b) => box.x < b.x + b.width && b.x < box.x + box.width
          && box.y < b.y + b.height && b.y < box.y + box.height);
        label.setAttribute("visibility", covers ? "hidden" : "visible");
        if (!covers) placed.push(box);
      }
    }
    function schedule() {
      if (!frame) frame = requestAnimationFrame(render);
    }
    function toViewBox(event) {
      const box = svg.getBoundingClientRect();
      const scale = SIZE / Math.min(box.width, box.height); // "meet": the square fits the shorter side
      return { x: (event.clientX - box.left - (box.width - SIZE / scale) / 2) * scale,
               y: (event.clientY - box.top - (box.height - SIZE / scale) / 2) * scale };
    }
    function zoomAt(point, factor) {
      const k = Math.min(MAX_ZOOM, Math.max(1, zoom.k * factor));
      const f = k / zoom.k;
      zoom = { k, x: point.x - (point.x - zoom.x) * f, y: point.y - (point.y - zoom.y) * f };
      if (k === 1) zoom = { k: 1, x: 0, y: 0 };
      schedule();
    }
    function centreOn(x, y, k) {
      zoom = { k, x: SIZE / 2 - x * k, y: SIZE / 2 - y * k };
      schedule();
    }
    if (window.ResizeObserver) new ResizeObserver(schedule).observe(svg); // keep points a fixed pixel size
    svg.addEventListener("wheel", (event) => {
      event.preventDefault();
      zoomAt(toViewBox(event), Math.exp(-event.deltaY * (event.deltaMode ? 0.05 : 0.002)));
    }, { passive: false });
    zoomIn.addEventListener("click", () => zoomAt({ x: SIZE / 2, y: SIZE / 2 }, 1.6));
    zoomOut.addEventListener("click", () => zoomAt({ x: SIZE / 2, y: SIZE / 2 }, 1 / 1.6));
    reset.addEventListener("click", () => {
      search.value = "";
      pinned = null;
      restoreHighlight();
      zoom = { k: 1, x: 0, y: 0 };
      schedule();
    });

    let press = null;
    let dragged = false;
    let lastPointer = "mouse";
    let tapped = null; // the paper whose title a first tap showed
    svg.addEventListener("pointerdown", (event) => {
      lastPointer = event.pointerType || "mouse";
      if (event.button !== 0) return;
      press = { id: event.pointerId, start: toViewBox(event), origin: { ...zoom }, sx: event.clientX, sy: event.clientY };
      dragged = false;
    });
    svg.addEventListener("pointermove", (event) => {
      if (!press || event.pointerId !== press.id) return;
      if (!dragged && Math.hypot(event.clientX - press.sx, event.clientY - press.sy) < DRAG_THRESHOLD) return;
      if (!dragged) {
        dragged = true;
        svg.setPointerCapture(event.pointerId);
        svg.classList.add("is-dragging");
        hideTip();
      }
      const now = toViewBox(event);
      zoom = { ...press.origin, x: press.origin.x + now.x - press.start.x, y: press.origin.y + now.y - press.start.y };
      schedule();
    });
    const release = () => {
      press = null;
      svg.classList.remove("is-dragging");
    };
    svg.addEventListener("pointerup", release);
    svg.addEventListener("pointercancel", release);
    // A point is a real link (open in a new tab works); a plain click loads the page itself, so
    // the theme's instant navigation never sees an SVG link. A drag that ends on a point is no click.
    svg.addEventListener("click", (event) => {
      const link = event.target.closest("a");
      if (!link) return;
      if (dragged) {
        event.preventDefault();
        event.stopPropagation();
        dragged = false;
        return;
      }
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      event.stopPropagation();
      // On a touch screen there is no hover: the first tap on a point shows its title, a second
      // tap on the same point opens the paper.
      const circle = link.querySelector("circle");
      const paper = circle ? papers[circle.dataset.index] : null;
      if (lastPointer === "touch" && paper && tapped !== paper) {
        tapped = paper;
        const box = circle.getBoundingClientRect();
        showTip(paper, box.left + box.width / 2, box.top + box.height / 2, "Tap again to open");
        return;
      }
      window.location.assign(link.getAttribute("href"));
    });

    // --- the title on hover --------------------------------------------------------------------------
    function showTip(paper, clientX, clientY, hint) {
      tip.textContent = paper.title;
      const topic = topics[paper.topic];
      if (topic) element("small", {}, tip).textContent = topic.label;
      if (hint) element("small", {}, tip).textContent = hint;
      tip.hidden = false;
      const box = host.getBoundingClientRect();
      const left = Math.min(clientX - box.left + 14, box.width - tip.offsetWidth - 4);
      tip.style.left = `${Math.max(0, left)}px`;
      tip.style.top = `${clientY - box.top + 14}px`;
    }
    function hideTip() {
      tip.hidden = true;
      tapped = null;
    }
    svg.addEventListener("pointerover", (event) => {
      const index = event.target.dataset && event.target.dataset.index;
      if (index !== undefined && !press) showTip(papers[index], event.clientX, event.clientY);
    });
    svg.addEventListener("pointerout", (event) => {
      if (lastPointer === "touch") return; // a tapped title stays until the next tap
      if (event.target.dataset && event.target.dataset.index !== undefined) hideTip();
    });

    // --- highlighting: a topic (legend, #topic=), a search, or one paper (#paper=) --------------------
    let pinned = null; // the highlight to come back to when the pointer leaves the legend
    function highlight(matches, topicIndex) {
      svg.classList.add("is-filtered");
      let found = 0;
      papers.forEach((paper, i) => {
        const hit = matches(paper);
        found += hit;
        circles[i].classList.toggle("is-match", hit);
      });
      for (const label of labels) label.classList.toggle("is-match", Number(label.dataset.topic) === topicIndex);
      for (const item of legendItems) item.classList.toggle("is-active", Number(item.dataset.topic) === topicIndex);
      placeLabels();
      return found;
    }
    function clearHighlight() {
      svg.classList.remove("is-filtered");
      for (const label of labels) label.classList.remove("is-match");
      for (const item of legendItems) item.classList.remove("is-active");
      placeLabels();
    }
    function restoreHighlight() {
      if (search.value.trim()) runSearch();
      else if (pinned) highlight(pinned.matches, pinned.topic);
      else clearHighlight();
    }
    function runSearch() {
      const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      if (!words.length) {
        count.textContent = "";
        restoreHighlight();
        return;
      }
      const found = highlight((paper) => words.every((w) => paper.title.toLowerCase().includes(w)), -1);
      count.textContent = `${found} of ${papers.length} papers`;
    }
    search.addEventListener("input", runSearch);

    const fragment = decodeURIComponent(window.location.hash.slice(1));
    const [kind, slug] = fragment.split("=");
    if (kind === "topic") {
      const topic = topics.find((t) => t.slug === slug);
      if (topic) {
        pinned = { matches: (p) => p.topic === topic.index, topic: topic.index };
        count.textContent = `${topic.members.length} papers in ${topic.label}`;
      }
    } else if (kind === "paper") {
      const paper = papers.find((p) => p.slug === slug);
      if (paper) {
        circles[paper.index].classList.add("is-picked");
        // The found paper is named on the map itself, beside its point, above the topic names.
        const name = element("text", { x: paper.x, y: paper.y, "text-anchor": "start",
          "dominant-baseline": "middle", class: "paper-map__picked", "data-paper": paper.index }, labelLayer, SVG);
        name.textContent = paper.title.length > 48 ? `${paper.title.slice(0, 47)}…` : paper.title;
        pickedLabel = { text: name, paper };
        pinned = { matches: (p) => p.topic === paper.topic || p === paper, topic: paper.topic };
        centreOn(paper.x, paper.y, PICKED_ZOOM);
        requestAnimationFrame(() => {
          const box = circles[paper.index].getBoundingClientRect();
          showTip(paper, box.left + box.width / 2, box.top + box.height / 2);
        });
      }
    }
    restoreHighlight();
    render();
    host.dataset.ready = "true";
  }

  // The data is a script that sets window.paperDigestMap rather than JSON to fetch: browsers refuse
  // fetch() on a site opened from disk (file://), but load its scripts.
  function loadData(src) {
    if (window.paperDigestMap) return Promise.resolve(window.paperDigestMap);
    return new Promise((resolve, reject) => {
      const script = element("script", { src }, document.head);
      script.onload = () => (window.paperDigestMap ? resolve(window.paperDigestMap) : reject(new Error(`no data in ${src}`)));
      script.onerror = () => reject(new Error(`${src} did not load`));
    });
  }

  function start() {
    const host = document.querySelector(".paper-map[data-src]");
    if (!host || host.dataset.started) return;
    host.dataset.started = "true";
    addStyle();
    host.textContent = "Loading the map…";
    loadData(host.dataset.src)
      .then((data) => draw(host, data))
      .catch((error) => {
        host.textContent = `The map could not be loaded (${error.message}).`;
      });
  }

  // Material's instant navigation swaps pages without reloading scripts: start on every page change.
  // A site opened from disk (file://) gets no instant navigation, and its document$ may never
  // emit: start on the page as loaded, too.
  if (typeof document$ !== "undefined") document$.subscribe(start);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

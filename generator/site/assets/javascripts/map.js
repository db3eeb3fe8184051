// The paper map. On the page that holds <div class="paper-map" data-src="…" data-root="…">, this
// loads the point data written by the generator (assets/paper-map.js, part of the site, never a
// CDN) and draws it on a canvas: one dot per paper, coloured by topic, with the topics named where
// their papers gather. Scroll, a pinch, the keys or the buttons zoom, dragging moves, a box finds
// papers by title. URL fragments "#paper=SLUG" and "#topic=SLUG" (linked from paper and topic pages)
// pick one out; a picked paper is named beside its point. On a touch screen a first tap shows a
// title, a second opens.
//
// Why a canvas written pixel by pixel: a whole conference is tens of thousands of papers, and one
// SVG element per paper takes seconds to lay out and hundreds of milliseconds to restyle on every
// step of a drag. Stamping pre-drawn dots into one ImageData takes about 10 ms for 50,000 papers even
// where the browser draws without a GPU (a path or drawImage() per dot there takes ~200 ms), and a
// drag, which only moves the picture, moves the pixels drawn and stamps only the strips it uncovers.
// The few things a reader reads (topic names, the picked paper's name, the dot under the pointer,
// which is a real link) stay HTML over the canvas. benchmarks/map_speed.py measures it.
(function () {
  "use strict";

  const SIZE = 1000; // map units; the data lies in the unit square
  const MARGIN = 24;
  const POINT_RADIUS = 4.5; // in CSS pixels at any zoom
  const LABEL_SIZE = 13;
  const MAX_ZOOM = 40;
  const PICKED_ZOOM = 3; // close enough to tell a paper's neighbours apart at a few thousand papers
  const DRAG_THRESHOLD = 4; // pixels a press may move and still count as a click
  const TOUCH_REACH = 14; // a fingertip covers more than a dot
  const DIMMED = 0.12; // what is left of a dot's colour when a highlight leaves it out
  const KEY_STEP = 0.1; // share of the map an arrow key moves it

  const STYLE = `
.paper-map { position: relative; margin: 1em 0; font-size: .75rem; }
.paper-map__bar { display: flex; flex-wrap: wrap; gap: .5em; align-items: center; margin-bottom: .5em; }
.paper-map__bar input { flex: 1 1 14em; padding: .35em .6em; font: inherit; color: inherit;
  background: var(--md-default-bg-color); border: 1px solid var(--md-default-fg-color--lighter); border-radius: .2em; }
.paper-map__bar button { min-width: 2.2em; padding: .3em .6em; font: inherit; color: inherit; cursor: pointer;
  background: var(--md-default-fg-color--lightest); border: 0; border-radius: .2em; }
.paper-map__count { color: var(--md-default-fg-color--light); }
.paper-map__view { position: relative; overflow: hidden; height: min(70vh, 100vw); cursor: grab; touch-action: none;
  user-select: none; -webkit-user-select: none; -webkit-tap-highlight-color: transparent;
  border: 1px solid var(--md-default-fg-color--lightest); border-radius: .2em; background: var(--md-default-bg-color); }
.paper-map__view:focus-visible { outline: 2px solid var(--md-accent-fg-color, currentColor); outline-offset: 1px; }
.paper-map__view.is-dragging, .paper-map__view.is-dragging a { cursor: grabbing; }
.paper-map__view canvas { position: absolute; left: 0; top: 0; width: 100%; height: 100%; }
.paper-map__label, .paper-map__picked { position: absolute; left: 0; top: 0; pointer-events: none; white-space: nowrap;
  font-size: ${LABEL_SIZE}px; line-height: 1.25; font-weight: 700; color: var(--md-default-fg-color);
  text-shadow: -1px -1px 0 var(--md-default-bg-color), 1px -1px 0 var(--md-default-bg-color),
    -1px 1px 0 var(--md-default-bg-color), 1px 1px 0 var(--md-default-bg-color), 0 0 3px var(--md-default-bg-color); }
.paper-map.is-filtered .paper-map__label:not(.is-match) { opacity: .25; }
.paper-map__point { position: absolute; left: 0; top: 0; box-sizing: border-box; border-radius: 50%;
  width: ${2 * POINT_RADIUS + 1}px; height: ${2 * POINT_RADIUS + 1}px; border: 1.5px solid var(--md-default-fg-color); }
.paper-map__tip { position: absolute; z-index: 2; max-width: 24em; padding: .4em .6em; pointer-events: none;
  background: var(--md-default-bg-color); box-shadow: var(--md-shadow-z2); border-radius: .2em; }
.paper-map__tip small { display: block; color: var(--md-default-fg-color--light); }
.paper-map__legend { display: flex; flex-wrap: wrap; gap: .2em 1.2em; margin-top: .8em; }
.paper-map__legend .is-active a { font-weight: 700; }
.paper-map__swatch { display: inline-block; width: .8em; height: .8em; margin-right: .35em; border-radius: 50%;
  vertical-align: -.05em; }
`;

  // ImageData is RGBA in memory; a Uint32Array over it reads those bytes in the machine's order.
  const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  const [R_SHIFT, G_SHIFT, B_SHIFT, A_SHIFT] = LITTLE_ENDIAN ? [0, 8, 16, 24] : [24, 16, 8, 0];
  const pack = (r, g, b) => ((r << R_SHIFT) | (g << G_SHIFT) | (b << B_SHIFT) | (255 << A_SHIFT)) >>> 0;

  function element(name, attributes, parent) {
    const node = document.createElement(name);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  // Hues a golden angle apart, so topics with neighbouring numbers never look alike.
  function topicColour(index) {
    if (index < 0) return "hsl(0, 0%, 55%)";
    return `hsl(${(index * 137.508) % 360}, 70%, ${index % 2 ? 38 : 50}%)`;
  }

  function slugOf(url) {
    return url.replace(/(\/index)?\.html$|\/$/, "").split("/").pop();
  }

  function addStyle() {
    if (document.getElementById("paper-map-style")) return;
    element("style", { id: "paper-map-style" }, document.head).textContent = STYLE;
  }

  // Scratch canvases kept on the CPU: stamps and colours are read back from them.
  const scratches = new Map();
  function scratch(side) {
    if (!scratches.has(side)) {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = side;
      scratches.set(side, canvas.getContext("2d", { willReadFrequently: true }));
    }
    const context = scratches.get(side);
    context.clearRect(0, 0, side, side);
    return context;
  }

  // Any CSS colour the theme gives, as bytes over white (the canvas itself is opaque).
  function colourBytes(css) {
    const context = scratch(1);
    context.fillStyle = "#fff";
    context.fillRect(0, 0, 1, 1);
    context.fillStyle = "rgba(0, 0, 0, 0)";
    context.fillStyle = css;
    context.fillRect(0, 0, 1, 1);
    return [...context.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  }

  // One dot as drawn by the canvas itself (antialiased, ringed in the background colour so crowded
  // dots stay apart), kept as the offsets and colours of its pixels, all opaque so a frame only
  // copies them: a pixel the dot half covers is its colour over the background, and since the dot's
  // outer edge is its background-coloured ring, that is what blending would give over the background.
  function makeStamp(colour, ratio, background, dim) {
    const radius = POINT_RADIUS * ratio;
    const reach = Math.ceil(radius + ratio) + 1;
    const side = 2 * reach + 1;
    const context = scratch(side);
    context.beginPath();
    context.arc(reach + 0.5, reach + 0.5, radius, 0, 2 * Math.PI);
    context.fillStyle = colour;
    context.fill();
    context.lineWidth = ratio;
    context.strokeStyle = `rgba(${background.join(", ")}, 0.7)`;
    context.stroke();
    const rgba = context.getImageData(0, 0, side, side).data;
    const dx = [];
    const dy = [];
    const value = [];
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) {
        const p = 4 * (y * side + x);
        const alpha = rgba[p + 3] / 255;
        if (alpha < 0.35) continue; // the dot barely reaches it: it stays what lies under it
        const keep = dim ? alpha * DIMMED : alpha;
        const [r, g, b] = [0, 1, 2].map((c) => Math.round(rgba[p + c] * keep + background[c] * (1 - keep)));
        dx.push(x - reach);
        dy.push(y - reach);
        value.push(pack(r, g, b));
      }
    }
    return { reach, dx: Int16Array.from(dx), dy: Int16Array.from(dy), value: Uint32Array.from(value), runs: null };
  }

  // Offsets into a row-major buffer depend on its width, so they are worked out per canvas width;
  // a dot's inside is one colour, so its rows are kept as runs of equal pixels, copied in a tight loop.
  function bindStamp(stamp, width) {
    const start = [];
    const length = [];
    const value = [];
    for (let j = 0; j < stamp.dx.length; j++) {
      const at = stamp.dy[j] * width + stamp.dx[j];
      const last = start.length - 1;
      if (last >= 0 && start[last] + length[last] === at && value[last] === stamp.value[j]) length[last] += 1;
      else start.push(at), length.push(1), value.push(stamp.value[j]);
    }
    stamp.runs = { start: Int32Array.from(start), length: Int32Array.from(length), value: Uint32Array.from(value) };
  }

  function draw(host, data) {
    const root = host.dataset.root || "";
    const rows = data.papers;
    const count = rows.length;
    const span = SIZE - 2 * MARGIN;
    const xs = new Float32Array(count);
    const ys = new Float32Array(count);
    const topicOf = new Int32Array(count);
    const colourSlot = new Int32Array(count); // 0 for no topic, else the topic's index + 1
    const topics = data.topics.map((topic, index) => ({ ...topic, index, url: root + topic.url, size: 0 }));
    rows.forEach(([x, y, topic], i) => {
      xs[i] = MARGIN + x * span;
      ys[i] = MARGIN + y * span;
      topicOf[i] = topic;
      colourSlot[i] = topics[topic] ? topic + 1 : 0;
      if (topics[topic]) topics[topic].size += 1;
    });
    const titleOf = (i) => String(rows[i][3]);
    const hrefOf = (i) => root + rows[i][4];
    let lowerTitles = null; // made at the first search only

    // A grid of cells, each listing its papers in drawing order: the paper under the pointer is
    // found among a few cells' papers, not among all of them on every pointer move.
    const cells = Math.max(1, Math.min(1024, Math.round(Math.sqrt(count / 2))));
    const cellSize = SIZE / cells;
    const cellOf = (v) => Math.min(cells - 1, Math.max(0, Math.floor(v / cellSize)));
    const cellStart = new Int32Array(cells * cells + 1);
    const cellPapers = new Int32Array(count);
    for (let i = 0; i < count; i++) cellStart[cellOf(ys[i]) * cells + cellOf(xs[i]) + 1] += 1;
    for (let c = 0; c < cells * cells; c++) cellStart[c + 1] += cellStart[c];
    const fill = cellStart.slice(0, -1);
    for (let i = 0; i < count; i++) cellPapers[fill[cellOf(ys[i]) * cells + cellOf(xs[i])]++] = i;

    host.textContent = "";
    const bar = element("div", { class: "paper-map__bar" }, host);
    const search = element("input", { type: "search", placeholder: "Find papers by title", "aria-label": "Find papers by title" }, bar);
    const counter = element("span", { class: "paper-map__count", "aria-live": "polite" }, bar);
    const zoomIn = element("button", { type: "button", title: "Zoom in", "aria-label": "Zoom in" }, bar);
    const zoomOut = element("button", { type: "button", title: "Zoom out", "aria-label": "Zoom out" }, bar);
    const reset = element("button", { type: "button", title: "Show all papers" }, bar);
    zoomIn.textContent = "+";
    zoomOut.textContent = "−";
    reset.textContent = "Reset";

    const view = element("div", { class: "paper-map__view", tabindex: "0", role: "img",
      "aria-label": `Map of ${count} papers coloured by topic. Arrow keys move it, + and − zoom, 0 shows all.` }, host);
    const canvas = element("canvas", { "aria-hidden": "true" }, view);
    const context = canvas.getContext("2d", { alpha: false });
    const labelLayer = element("div", { "aria-hidden": "true" }, view);
    // The dot under the pointer is a real link (open in a new tab, copy the address); one link that
    // moves, not one per paper.
    const link = element("a", { class: "paper-map__point", tabindex: "-1", draggable: "false", hidden: "" }, view);
    const pickedMark = element("span", { class: "paper-map__point is-picked", hidden: "" }, view);
    const tip = element("div", { class: "paper-map__tip", hidden: "" }, host);
    link.addEventListener("dragstart", (event) => event.preventDefault());

    // Each topic is named at the median of its papers, where most of them are.
    const members = topics.map(() => []);
    for (let i = 0; i < count; i++) if (topics[topicOf[i]]) members[topicOf[i]].push(i);
    const median = (values) => values.sort()[Math.floor(values.length / 2)];
    const labels = topics.filter((t) => t.size).map((topic) => {
      const node = element("span", { class: "paper-map__label", "data-topic": topic.index }, labelLayer);
      node.textContent = topic.label.split(" · ")[0];
      return { node, topic: topic.index, size: topic.size, match: false, shown: null, w: 0, h: 0,
        x: median(Float32Array.from(members[topic.index], (i) => xs[i])),
        y: median(Float32Array.from(members[topic.index], (i) => ys[i])) };
    });
    let labelOrder = labels.slice();
    const orderLabels = () => {
      // A highlighted topic is named first; otherwise bigger topics before smaller ones.
      labelOrder = labels.slice().sort((a, b) => (b.match - a.match) || (b.size - a.size));
    };
    orderLabels();

    // Plain elements, not a list: the theme's list styles would win over the legend's layout.
    const legend = element("div", { class: "paper-map__legend" }, host);
    const legendItems = topics.map((topic) => {
      const item = element("span", { "data-topic": topic.index }, legend);
      element("span", { class: "paper-map__swatch", style: `background:${topicColour(topic.index)}` }, item);
      const anchor = element("a", { href: topic.url }, item);
      anchor.textContent = topic.label;
      item.append(` (${topic.size})`);
      item.addEventListener("mouseenter", () => highlight((i) => topicOf[i] === topic.index, topic.index));
      item.addEventListener("mouseleave", () => restoreHighlight());
      return item;
    });

    // --- drawing: one frame per change, at most one per display frame --------------------------
    let zoom = { k: 1, x: 0, y: 0 }; // map units: screen = fit(zoom.x + zoom.k * point)
    let frame = 0;
    let size = { width: 0, height: 0 };
    let image = null;
    let pixels = null;
    let stamps = null;
    let stampsKey = "";
    let painted = null; // what the pixels show now, so a drag only draws what it uncovers
    let version = 0; // counts the changes to how dots look (a highlight), which need a whole frame
    let background = [255, 255, 255];
    let filtered = false;
    const matched = new Uint8Array(count);
    let hovered = -1; // the paper the link is over
    let picked = -1; // the paper "#paper=" named
    let pickedLabel = null;
    let tipPaper = -1;

    function measure() {
      size = { width: view.clientWidth, height: view.clientHeight };
      for (const label of [...labels, ...(pickedLabel ? [pickedLabel] : [])]) {
        label.w = label.node.offsetWidth;
        label.h = label.node.offsetHeight;
      }
    }
    function readPalette() {
      background = colourBytes(getComputedStyle(view).backgroundColor);
    }
    // The fit of the map square into the view ("meet": it fits the shorter side, centred), with the
    // zoom: a point's CSS pixel is (bx + A * x, by + A * y).
    function layout() {
      const fit = Math.min(size.width, size.height) / SIZE;
      return { A: fit * zoom.k, bx: (size.width - SIZE * fit) / 2 + fit * zoom.x,
        by: (size.height - SIZE * fit) / 2 + fit * zoom.y, fit };
    }
    const screenX = (i, at) => at.bx + at.A * xs[i];
    const screenY = (i, at) => at.by + at.A * ys[i];

    function render() {
      if (frame) cancelAnimationFrame(frame);
      frame = 0;
      if (!host.isConnected || !size.width || !size.height) return;
      const ratio = Math.min(3, window.devicePixelRatio || 1);
      const width = Math.round(size.width * ratio);
      const height = Math.round(size.height * ratio);
      if (!image || canvas.width !== width || canvas.height !== height) {
        canvas.width = width;
        canvas.height = height;
        image = context.createImageData(width, height);
        pixels = new Uint32Array(image.data.buffer);
      }
      const key = `${ratio} ${background}`;
      if (stampsKey !== key) {
        stamps = { ratio, plain: null, dim: null };
        stampsKey = key;
      }
      const now = layout();
      const scale = now.A * ratio;
      let left = now.bx * ratio;
      let top = now.by * ratio;
      const last = painted;
      let drawn;
      if (last && last.scale === scale && last.key === key && last.version === version && last.width === width
        && last.height === height && Math.abs(left - last.left) < width / 2 && Math.abs(top - last.top) < height / 2) {
        // Only moved (a drag): what is drawn moves along, whole device pixels at a time, so only
        // the uncovered edges are drawn and the frame is the same as one drawn whole.
        const dx = Math.round(left - last.left);
        const dy = Math.round(top - last.top);
        left = last.left + dx;
        top = last.top + dy;
        drawn = last.drawn;
        if (dx || dy) drawn = shift(dx, dy, width, height, scale, left, top);
      } else {
        drawn = rasterise([0, 0, width, height], scale, left, top);
      }
      painted = { scale, left, top, width, height, key, version, drawn };
      context.putImageData(image, 0, 0);
      placeOverlay(now);
      if (host.dataset.drawn !== String(drawn)) host.dataset.drawn = String(drawn);
    }
    function schedule() {
      if (!frame) frame = requestAnimationFrame(render);
    }

    // The flat buffer moves by dy rows and dx pixels at once; what wraps from one row into the next
    // lands in the uncovered column strip, which is drawn afresh with the uncovered row strip.
    function shift(dx, dy, width, height, scale, left, top) {
      const by = dy * width + dx;
      if (by > 0) pixels.copyWithin(by, 0, pixels.length - by);
      else pixels.copyWithin(0, -by);
      const [x0, x1] = dx > 0 ? [dx, width] : [0, width + dx];
      if (dx) rasterise(dx > 0 ? [0, 0, dx, height] : [width + dx, 0, width, height], scale, left, top);
      if (dy) rasterise(dy > 0 ? [x0, 0, x1, dy] : [x0, height + dy, x1, height], scale, left, top);
      let drawn = 0;
      const reach = stampSet("plain", width)[0].reach;
      for (let i = 0; i < count; i++) {
        const px = Math.floor(left + scale * xs[i]);
        const py = Math.floor(top + scale * ys[i]);
        if (px + reach >= 0 && py + reach >= 0 && px - reach < width && py - reach < height) drawn += 1;
      }
      return drawn;
    }

    // The faded dots are made the first time a highlight needs them.
    function stampSet(kind, width) {
      if (!stamps[kind]) {
        const colours = [topicColour(-1), ...topics.map((t) => topicColour(t.index))];
        stamps[kind] = colours.map((c) => makeStamp(c, stamps.ratio, background, kind === "dim"));
      }
      if (stamps[kind].width !== width) {
        for (const stamp of stamps[kind]) bindStamp(stamp, width);
        stamps[kind].width = width;
      }
      return stamps[kind];
    }
    // Papers a highlight leaves out are drawn first, faded, so none of them hides one it picks.
    // Only the pixels in `area` ([x0, y0, x1, y1]) are drawn.
    function rasterise(area, scale, left, top) {
      const [x0, y0, x1, y1] = area;
      const width = canvas.width;
      const ground = pack(...background);
      if (x0 === 0 && y0 === 0 && x1 === width && y1 === canvas.height) pixels.fill(ground);
      else for (let y = y0; y < y1; y++) pixels.fill(ground, y * width + x0, y * width + x1);
      let drawn = 0;
      const passes = filtered ? [[0, stampSet("dim", width)], [1, stampSet("plain", width)]] : [[-1, stampSet("plain", width)]];
      for (const [want, set] of passes) {
        for (let i = 0; i < count; i++) {
          if (want >= 0 && matched[i] !== want) continue;
          const px = Math.floor(left + scale * xs[i]);
          const py = Math.floor(top + scale * ys[i]);
          const stamp = set[colourSlot[i]];
          const reach = stamp.reach;
          if (px + reach < x0 || py + reach < y0 || px - reach >= x1 || py - reach >= y1) continue;
          drawn += 1;
          if (px - reach >= x0 && py - reach >= y0 && px + reach < x1 && py + reach < y1) stampAt(stamp, py * width + px);
          else stampClipped(stamp, px, py, area);
        }
      }
      return drawn;
    }
    function stampAt(stamp, base) {
      const { start, length, value } = stamp.runs;
      for (let r = 0; r < start.length; r++) {
        const from = base + start[r];
        const to = from + length[r];
        const colour = value[r];
        for (let at = from; at < to; at++) pixels[at] = colour;
      }
    }
    function stampClipped(stamp, px, py, [x0, y0, x1, y1]) {
      const { dx, dy, value } = stamp;
      const width = canvas.width;
      for (let j = 0; j < dx.length; j++) {
        const x = px + dx[j];
        const y = py + dy[j];
        if (x >= x0 && y >= y0 && x < x1 && y < y1) pixels[y * width + x] = value[j];
      }
    }

    // --- what is HTML over the canvas: topic names, the picked paper, the link, the title -------
    const move = (node, x, y) => {
      node.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px)`;
    };
    const inView = (x, y, w, h) => x + w > 0 && y + h > 0 && x < size.width && y < size.height;
    function placeOverlay(now) {
      if (labels.length && !labels[0].w && size.width) measure(); // drawn while hidden at first
      // A topic name that would cover a bigger topic's name (or a highlighted one) is hidden until
      // zooming in makes room for it.
      const placed = [];
      if (pickedLabel) {
        const x = screenX(picked, now) + 2 * POINT_RADIUS;
        const y = screenY(picked, now) - pickedLabel.h / 2;
        move(pickedLabel.node, x, y);
        placed.push({ x, y, w: pickedLabel.w, h: pickedLabel.h });
      }
      for (const label of labelOrder) {
        const box = { x: now.bx + now.A * label.x - label.w / 2, y: now.by + now.A * label.y - label.h / 2,
          w: label.w, h: label.h };
        const shown = inView(box.x, box.y, box.w, box.h) && !placed.some((b) => box.x < b.x + b.w
          && b.x < box.x + box.w && box.y < b.y + b.h && b.y < box.y + box.h);
        if (shown) {
          placed.push(box);
          move(label.node, box.x, box.y);
        }
        if (label.shown !== shown) label.node.style.visibility = shown ? "visible" : "hidden";
        label.shown = shown;
      }
      placeMark(link, hovered, now);
      placeMark(pickedMark, picked, now);
      placeTip(now);
    }
    function placeMark(node, i, now) {
      if (i < 0) return;
      const x = screenX(i, now);
      const y = screenY(i, now);
      node.hidden = !inView(x - POINT_RADIUS, y - POINT_RADIUS, 2 * POINT_RADIUS, 2 * POINT_RADIUS);
      move(node, x - POINT_RADIUS - 0.5, y - POINT_RADIUS - 0.5);
    }
    function setLink(i) {
      hovered = i;
      if (i < 0) {
        link.hidden = true;
        link.removeAttribute("href");
        return;
      }
      link.href = hrefOf(i);
      link.setAttribute("aria-label", titleOf(i));
      link.style.background = topicColour(colourSlot[i] - 1);
      placeMark(link, i, layout());
    }

    function showTip(i, hint) {
      tip.textContent = titleOf(i);
      const topic = topics[topicOf[i]];
      if (topic) element("small", {}, tip).textContent = topic.label;
      if (hint) element("small", {}, tip).textContent = hint;
      tip.hidden = false;
      tipPaper = i;
      placeTip(layout());
    }
    function hideTip() {
      tip.hidden = true;
      tipPaper = -1;
      tapped = -1;
    }
    // The title stays beside its paper while the map zooms under it.
    function placeTip(now) {
      if (tipPaper < 0 || tip.hidden) return;
      const x = screenX(tipPaper, now);
      const y = screenY(tipPaper, now);
      if (!inView(x, y, 0, 0)) {
        hideTip();
        return;
      }
      const box = host.getBoundingClientRect();
      const frameBox = view.getBoundingClientRect();
      const left = frameBox.left - box.left + view.clientLeft + x;
      tip.style.left = `${Math.max(0, Math.min(left + 14, box.width - tip.offsetWidth - 4))}px`;
      tip.style.top = `${frameBox.top - box.top + view.clientTop + y + 14}px`;
    }

    // --- finding the paper under a pointer --------------------------------------------------------
    function localPoint(clientX, clientY) {
      const box = view.getBoundingClientRect();
      return { x: clientX - box.left - view.clientLeft, y: clientY - box.top - view.clientTop };
    }
    // The dot drawn on top under the pointer, as the eye sees it; failing that, within `reach`
    // pixels, the nearest.
    function paperAt(clientX, clientY, reach) {
      const now = layout();
      if (!count || !now.A) return -1;
      const local = localPoint(clientX, clientY);
      const mx = (local.x - now.bx) / now.A;
      const my = (local.y - now.by) / now.A;
      const r = reach / now.A;
      const inside = (POINT_RADIUS + 0.5) ** 2;
      let best = -1;
      let bestRank = -1;
      let bestDistance = Infinity;
      for (let cy = cellOf(my - r); cy <= cellOf(my + r); cy++) {
        for (let cx = cellOf(mx - r); cx <= cellOf(mx + r); cx++) {
          const c = cy * cells + cx;
          for (let j = cellStart[c]; j < cellStart[c + 1]; j++) {
            const i = cellPapers[j];
            const dx = (xs[i] - mx) * now.A;
            const dy = (ys[i] - my) * now.A;
            const distance = dx * dx + dy * dy;
            if (distance > reach * reach) continue;
            const rank = distance <= inside ? (filtered ? matched[i] * count : 0) + i : -1;
            if (rank > bestRank || (rank === bestRank && rank < 0 && distance < bestDistance)) {
              best = i;
              bestRank = rank;
              bestDistance = distance;
            }
          }
        }
      }
      return best;
    }

    // --- zoom and pan ---------------------------------------------------------------------------
    function toMap(clientX, clientY) {
      const local = localPoint(clientX, clientY);
      const fit = Math.min(size.width, size.height) / SIZE || 1;
      return { x: (local.x - (size.width - SIZE * fit) / 2) / fit, y: (local.y - (size.height - SIZE * fit) / 2) / fit };
    }
    function zoomAt(point, factor) {
      const k = Math.min(MAX_ZOOM, Math.max(1, zoom.k * factor));
      const f = k / zoom.k;
      zoom = { k, x: point.x - (point.x - zoom.x) * f, y: point.y - (point.y - zoom.y) * f };
      if (k === 1) zoom = { k: 1, x: 0, y: 0 };
      schedule();
    }
    function centreOn(i, k) {
      zoom = { k, x: SIZE / 2 - xs[i] * k, y: SIZE / 2 - ys[i] * k };
      schedule();
    }
    const centre = { x: SIZE / 2, y: SIZE / 2 };
    if (window.ResizeObserver) {
      new ResizeObserver(() => {
        if (view.clientWidth === size.width && view.clientHeight === size.height) return; // its first call
        measure();
        schedule();
      }).observe(view);
    } else {
      window.addEventListener("resize", () => {
        measure();
        schedule();
      });
    }
    // The theme's light/dark switch repaints CSS at once; the canvas has to be told.
    const palette = new MutationObserver(() => {
      if (!host.isConnected) {
        palette.disconnect(); // the page was left by instant navigation
        return;
      }
      readPalette();
      schedule();
    });
    palette.observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme", "data-md-color-primary"] });

    view.addEventListener("wheel", (event) => {
      event.preventDefault();
      zoomAt(toMap(event.clientX, event.clientY), Math.exp(-event.deltaY * (event.deltaMode ? 0.05 : 0.002)));
    }, { passive: false });
    zoomIn.addEventListener("click", () => zoomAt(centre, 1.6));
    zoomOut.addEventListener("click", () => zoomAt(centre, 1 / 1.6));
    const showAll = () => {
      zoom = { k: 1, x: 0, y: 0 };
      schedule();
    };
    reset.addEventListener("click", () => {
      search.value = "";
      pinned = null;
      restoreHighlight();
      showAll();
    });
    view.addEventListener("keydown", (event) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const step = SIZE * KEY_STEP; // map units at screen scale: the same share of the view at any zoom
      const pans = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
      if (pans[event.key]) {
        zoom = { ...zoom, x: zoom.x + pans[event.key][0], y: zoom.y + pans[event.key][1] };
        schedule();
      } else if (event.key === "+" || event.key === "=") zoomAt(centre, 1.6);
      else if (event.key === "-" || event.key === "_") zoomAt(centre, 1 / 1.6);
      else if (event.key === "0") showAll();
      else if (event.key === "Escape") hideTip();
      else return;
      event.preventDefault();
    });

    const pointers = new Map(); // pointerId -> the latest client position, for a pinch
    let press = null;
    let pinch = null;
    let dragged = false;
    let lastPointer = "mouse";
    let tapped = -1; // the paper whose title a first tap showed
    const startPress = (id, x, y) => {
      press = { id, start: toMap(x, y), origin: { ...zoom }, sx: x, sy: y };
    };
    function startPinch() {
      const [a, b] = [...pointers.values()];
      pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y) || 1, centre: toMap((a.x + b.x) / 2, (a.y + b.y) / 2),
        origin: { ...zoom } };
    }
    function movePinch() {
      const [a, b] = [...pointers.values()];
      const k = Math.min(MAX_ZOOM, Math.max(1, pinch.origin.k * (Math.hypot(a.x - b.x, a.y - b.y) / pinch.distance)));
      const now = toMap((a.x + b.x) / 2, (a.y + b.y) / 2);
      // The map point that was between the fingers stays between them.
      const mx = (pinch.centre.x - pinch.origin.x) / pinch.origin.k;
      const my = (pinch.centre.y - pinch.origin.y) / pinch.origin.k;
      zoom = { k, x: now.x - mx * k, y: now.y - my * k };
      schedule();
    }
    function startDragging(pointerId) {
      dragged = true;
      if (pointerId !== undefined && view.setPointerCapture) view.setPointerCapture(pointerId);
      view.classList.add("is-dragging");
      hideTip();
      setLink(-1);
    }
    view.addEventListener("pointerdown", (event) => {
      lastPointer = event.pointerType || "mouse";
      if (event.button !== 0) return;
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (pointers.size === 2) {
        press = null;
        startPinch();
        startDragging();
      } else if (pointers.size === 1) {
        startPress(event.pointerId, event.clientX, event.clientY);
        dragged = false;
      }
    });
    view.addEventListener("pointermove", (event) => {
      if (pointers.has(event.pointerId)) pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (pinch && pointers.size >= 2) {
        movePinch();
        return;
      }
      if (!press) {
        if (event.pointerType !== "touch") hover(event);
        return;
      }
      if (event.pointerId !== press.id) return;
      if (!event.buttons) {
        release(event); // the button came up outside the map, before any drag captured the pointer
        return;
      }
      if (!dragged && Math.hypot(event.clientX - press.sx, event.clientY - press.sy) < DRAG_THRESHOLD) return;
      if (!dragged) startDragging(event.pointerId);
      const now = toMap(event.clientX, event.clientY);
      zoom = { ...press.origin, x: press.origin.x + now.x - press.start.x, y: press.origin.y + now.y - press.start.y };
      schedule();
    });
    const release = (event) => {
      pointers.delete(event.pointerId);
      if (pinch && pointers.size < 2) {
        pinch = null;
        // The finger still down goes on moving the map from where the pinch left it.
        const [rest] = [...pointers.entries()];
        if (rest) startPress(rest[0], rest[1].x, rest[1].y);
      }
      if (!pointers.size) {
        press = null;
        view.classList.remove("is-dragging");
      }
    };
    view.addEventListener("pointerup", release);
    view.addEventListener("pointercancel", release);
    view.addEventListener("pointerleave", (event) => {
      if (event.pointerType === "touch" || press) return; // a tapped title stays until the next tap
      if (hovered >= 0) {
        setLink(-1);
        hideTip();
      }
    });
    function hover(event) {
      const i = paperAt(event.clientX, event.clientY, POINT_RADIUS + 1);
      if (i === hovered) return;
      setLink(i);
      if (i >= 0) showTip(i);
      else hideTip();
    }
    // A plain click loads the paper itself, so the theme's instant navigation never sees the map's
    // link; a click with a modifier is the link's own (a new tab). A drag that ends on a dot is no click.
    view.addEventListener("click", (event) => {
      if (dragged) {
        event.preventDefault();
        event.stopPropagation();
        dragged = false;
        return;
      }
      const touch = lastPointer === "touch";
      const i = event.target === link ? hovered : paperAt(event.clientX, event.clientY, touch ? TOUCH_REACH : POINT_RADIUS + 1);
      if (i < 0) {
        if (touch) hideTip();
        return;
      }
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      event.stopPropagation();
      // On a touch screen there is no hover: the first tap on a dot shows its title, a second tap
      // on the same dot opens the paper.
      if (touch && tapped !== i) {
        setLink(i);
        showTip(i, "Tap again to open");
        tapped = i;
        return;
      }
      window.location.assign(hrefOf(i));
    });

    // --- highlighting: a topic (legend, #topic=), a search, or one paper (#paper=) --------------------
    let pinned = null; // the highlight to come back to when the pointer leaves the legend
    let shownTopic = null;
    function highlight(matches, topicIndex) {
      filtered = true;
      version += 1;
      host.classList.add("is-filtered");
      let found = 0;
      for (let i = 0; i < count; i++) {
        const hit = matches(i) ? 1 : 0;
        matched[i] = hit;
        found += hit;
      }
      markTopic(topicIndex);
      schedule();
      return found;
    }
    function markTopic(topicIndex) {
      if (shownTopic === topicIndex) return;
      shownTopic = topicIndex;
      for (const label of labels) {
        label.match = label.topic === topicIndex;
        label.node.classList.toggle("is-match", label.match);
      }
      for (const item of legendItems) item.classList.toggle("is-active", Number(item.dataset.topic) === topicIndex);
      orderLabels();
    }
    function clearHighlight() {
      filtered = false;
      version += 1;
      host.classList.remove("is-filtered");
      markTopic(-1);
      schedule();
    }
    function restoreHighlight() {
      if (search.value.trim()) runSearch();
      else if (pinned) highlight(pinned.matches, pinned.topic);
      else clearHighlight();
    }
    function runSearch() {
      const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      if (!words.length) {
        counter.textContent = "";
        restoreHighlight();
        return;
      }
      if (!lowerTitles) lowerTitles = rows.map((row) => String(row[3]).toLowerCase());
      const found = highlight((i) => words.every((w) => lowerTitles[i].includes(w)), -1);
      counter.textContent = `${found} of ${count} papers`;
    }
    search.addEventListener("input", runSearch);

    const fragment = decodeURIComponent(window.location.hash.slice(1));
    const [kind, slug] = fragment.split("=");
    if (kind === "topic") {
      const topic = topics.find((t) => t.slug === slug);
      if (topic) {
        pinned = { matches: (i) => topicOf[i] === topic.index, topic: topic.index };
        counter.textContent = `${topic.size} papers in ${topic.label}`;
      }
    } else if (kind === "paper") {
      picked = rows.findIndex((row) => slugOf(String(row[4])) === slug);
      if (picked >= 0) {
        const paper = picked;
        pickedMark.style.background = topicColour(colourSlot[paper] - 1);
        pickedMark.hidden = false;
        host.dataset.picked = slug;
        // The found paper is named on the map itself, beside its point, above the topic names.
        const node = element("span", { class: "paper-map__picked", "data-paper": paper, "aria-hidden": "true" }, labelLayer);
        const title = titleOf(paper);
        node.textContent = title.length > 48 ? `${title.slice(0, 47)}…` : title;
        pickedLabel = { node, w: 0, h: 0 };
        pinned = { matches: (i) => topicOf[i] === topicOf[paper] || i === paper, topic: topicOf[paper] };
        centreOn(paper, PICKED_ZOOM);
      }
    }
    readPalette();
    restoreHighlight();
    measure();
    render();
    if (picked >= 0) showTip(picked);
    // For the tests and the benchmark: where a paper is drawn and which paper is under a point.
    host.paperMap = {
      point(i) {
        const box = view.getBoundingClientRect();
        const now = layout();
        return { x: box.left + view.clientLeft + screenX(i, now), y: box.top + view.clientTop + screenY(i, now) };
      },
      paperAt: (x, y) => paperAt(x, y, POINT_RADIUS + 1),
      href: hrefOf,
    };
    host.dataset.points = String(count);
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

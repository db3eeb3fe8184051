// What a reader does on the digest's pages, all in the browser: stars papers into a list kept in
// localStorage ("My list"), exports and imports that list, and filters every paper on the Explore page
// (search is javascripts/search.js).
//
// Material's instant navigation swaps the page without running scripts again, so the page is set up
// on every `document$` emission. Everything that comes from the digest's data is put in the page as
// text (textContent), never as HTML.
(() => {
  "use strict";

  // The site's root, from this script's own address (javascripts/reader.js), resolved once: a
  // relative root taken from the page would go stale after instant navigation.
  const script = document.currentScript;
  const ROOT = new URL("../", script ? script.src : location.href);
  const STORE = "paper-digest:saved:" + ROOT.href; // two digests on one host keep their own lists
  const PAPERS_PREFIX = "papers/";

  // --- the saved list -----------------------------------------------------------------------

  function loadSaved() {
    try {
      const list = JSON.parse(localStorage.getItem(STORE) || "[]");
      return Array.isArray(list) ? list.filter((item) => item && typeof item.url === "string") : [];
    } catch (error) {
      return [];
    }
  }

  function storeSaved(list) {
    try {
      localStorage.setItem(STORE, JSON.stringify(list));
    } catch (error) {
      console.warn("Paper Digest: the list could not be saved in this browser", error);
    }
  }

  // Pages that moved or were removed since a paper was saved (assets/moved.json: old address -> new
  // address, or null for a removed paper). A saved paper that moved is kept under its new address, so
  // its star shows on its page; one that was removed stays in the list, shown on My list as gone.
  let movedPromise = null;
  function followMoves() {
    if (!movedPromise) {
      movedPromise = loadSaved().length
        ? fetch(new URL("assets/moved.json", ROOT))
            .then((response) => (response.ok ? response.json() : { moved: {} }))
            .then((data) => (data && typeof data.moved === "object" && data.moved) || {})
            .catch(() => ({}))
        : Promise.resolve({});
    }
    return movedPromise.then((moved) => {
      const list = loadSaved();
      const have = new Set(list.map((item) => item.url));
      let changed = false;
      const kept = [];
      for (const item of list) {
        const target = Object.hasOwn(moved, item.url) ? moved[item.url] : undefined;
        if (typeof target === "string") {
          changed = true;
          if (have.has(target)) continue; // saved under both addresses: once is enough
          have.add(target);
          kept.push({ ...item, url: target });
        } else {
          kept.push(item);
        }
      }
      if (changed) storeSaved(kept);
      return moved;
    });
  }

  function isSaved(url) {
    return loadSaved().some((item) => item.url === url);
  }

  function toggleSaved(url, title) {
    const list = loadSaved();
    const kept = list.filter((item) => item.url !== url);
    if (kept.length === list.length) {
      kept.push({ url, title: title || url, saved: new Date().toISOString() });
    }
    storeSaved(kept);
  }

  // A page's address relative to the site's root ("papers/slug/"), or null outside the site.
  function siteRelative(href) {
    let url;
    try {
      url = new URL(href, location.href);
    } catch (error) {
      return null;
    }
    if (url.origin !== ROOT.origin || !url.pathname.startsWith(ROOT.pathname)) return null;
    return decodeURI(url.pathname.slice(ROOT.pathname.length));
  }

  function isPaperUrl(relative) {
    return relative !== null && relative.startsWith(PAPERS_PREFIX) && relative.length > PAPERS_PREFIX.length;
  }

  // --- stars ----------------------------------------------------------------------------------

  function starButton(url, title, withLabel) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "paper-star" + (withLabel ? " paper-star--labelled" : "");
    button.dataset.url = url;
    button.dataset.title = title;
    paintStar(button, isSaved(url));
    return button;
  }

  function paintStar(button, saved) {
    const labelled = button.classList.contains("paper-star--labelled");
    button.setAttribute("aria-pressed", String(saved));
    button.title = saved ? "Remove from My list" : "Save to My list";
    button.setAttribute("aria-label", button.title);
    button.textContent = (saved ? "★" : "☆") + (labelled ? (saved ? " Saved" : " Save") : "");
  }

  function repaintStars() {
    const saved = new Set(loadSaved().map((item) => item.url));
    for (const button of document.querySelectorAll(".paper-star")) {
      paintStar(button, saved.has(button.dataset.url));
    }
  }

  // The text of an element as a reader reads it, without typeset math or permalinks.
  function readableText(element) {
    const copy = element.cloneNode(true);
    copy.querySelectorAll(".headerlink, mjx-container, .paper-star").forEach((node) => node.remove());
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  function addStars(article) {
    const here = siteRelative(location.href);
    const heading = article.querySelector("h1");
    // The 404 page answers at a missing paper's address too: it is no paper to save.
    const missing = article.querySelector(".paper-not-found");
    if (isPaperUrl(here) && heading && !missing && !article.querySelector(".paper-actions")) {
      const actions = document.createElement("p");
      actions.className = "paper-actions";
      actions.append(starButton(here, readableText(heading), true));
      heading.after(actions);
    }
    for (const link of article.querySelectorAll("li > a[href]:first-child")) {
      const target = siteRelative(link.getAttribute("href"));
      if (!isPaperUrl(target) || link.previousElementSibling) continue;
      link.before(starButton(target, readableText(link), false));
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest(".paper-star") : null;
    if (!button) return;
    event.preventDefault();
    toggleSaved(button.dataset.url, button.dataset.title);
    repaintStars();
    const saved = document.querySelector(".paper-saved");
    if (saved && saved.paperDigestRedraw) saved.paperDigestRedraw();
  });

  // --- the data file shared by Explore and My list --------------------------------------------

  let dataPromise = null;
  function loadData(container) {
    if (!dataPromise) {
      const source = new URL(container.dataset.src, location.href);
      dataPromise = fetch(source).then((response) => {
        if (!response.ok) throw new Error(`${source}: HTTP ${response.status}`);
        return response.json();
      });
      dataPromise.catch(() => (dataPromise = null));
    }
    return dataPromise;
  }

  // A paper of the data file as an object.
  function paperOf(data, row, position) {
    return {
      position,
      url: row[0],
      title: row[1],
      authors: row[2].map((i) => data.authors[i]),
      authorIds: row[2],
      keywordIds: row[3],
      topic: row[4],
      venue: row[5],
      year: row[6],
      id: row[7],
      track: row.length > 8 ? row[8] : -1,
      tagIds: row.length > 9 ? row[9] : [],
    };
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function paperItem(data, paper) {
    const item = element("li", "paper-item");
    const link = element("a", null, paper.title);
    link.href = new URL(paper.url, ROOT).href;
    item.append(starButton(paper.url, paper.title, false), link);
    const details = [];
    if (paper.authors.length) {
      const shown = paper.authors.slice(0, 6).join(", ");
      details.push(paper.authors.length > 6 ? `${shown} et al.` : shown);
    }
    const venue = paper.venue >= 0 ? data.venues[paper.venue] : "";
    const when = [venue, paper.year && !venue.includes(String(paper.year)) ? paper.year : ""].filter(Boolean);
    if (when.length) details.push(when.join(" "));
    if (paper.track >= 0 && data.tracks) details.push(data.tracks[paper.track]);
    if (paper.topic >= 0) details.push(data.topics[paper.topic]);
    if (details.length) item.append(element("small", null, details.join(" · ")));
    return item;
  }

  function showError(container, error) {
    container.replaceChildren(element("p", "paper-error", `Could not load the list of papers (${error.message}).`));
    console.warn("Paper Digest:", error);
  }

  // --- Explore ------------------------------------------------------------------------------

  const FILTERS = ["topic", "keyword", "author", "venue", "track", "tag", "year"];
  const PAGE = 50;

  function setUpExplore(container) {
    if (container.dataset.ready) return;
    container.dataset.ready = "loading";
    loadData(container)
      .then((data) => buildExplore(container, data))
      .catch((error) => showError(container, error));
  }

  function buildExplore(container, data) {
    const papers = data.papers.map((row, position) => paperOf(data, row, position));
    const lower = (list) => new Map(list.map((name, i) => [name.toLowerCase(), i]));
    const keywordIndex = lower(data.keywords);
    // Another spelling of a keyword ("deep-fake") finds the keyword it is grouped under ("deepfake").
    for (const [spelling, position] of data.keyword_variants || []) {
      if (!keywordIndex.has(spelling.toLowerCase())) keywordIndex.set(spelling.toLowerCase(), position);
    }
    const authorIndex = lower(data.authors);
    // The reader's own tags from their reference manager ("Unreviewed"): a filter, not keywords.
    const tags = data.tags || [];
    const tagIndex = lower(tags);
    const years = [...new Set(papers.map((p) => p.year).filter(Boolean))].sort((a, b) => b - a);

    const form = element("form", "paper-explore__form");
    form.setAttribute("role", "search");
    form.setAttribute("aria-label", "Filter the papers"); // told apart from the header's search
    const controls = {};
    const field = (name, label, control) => {
      const wrapper = element("label", "paper-explore__field");
      wrapper.append(element("span", null, label), control);
      control.name = name;
      controls[name] = control;
      form.append(wrapper);
    };
    const select = (options) => {
      const node = element("select");
      for (const [value, text] of options) {
        const option = element("option", null, text);
        option.value = value;
        node.append(option);
      }
      return node;
    };
    const listInput = (id, names) => {
      const input = element("input");
      input.type = "search";
      input.autocomplete = "off";
      input.setAttribute("list", id);
      const list = element("datalist");
      list.id = id;
      // Filled when first focused: thousands of names would slow the page's first paint.
      input.addEventListener(
        "focus",
        () => {
          if (list.childElementCount) return;
          const fragment = document.createDocumentFragment();
          for (const name of names) {
            const option = document.createElement("option");
            option.value = name;
            fragment.append(option);
          }
          list.append(fragment);
        },
        { once: true },
      );
      form.append(list);
      return input;
    };
    // A control only for what some paper has: a digest of bare abstracts has no authors, venues or
    // years, and an empty control would only puzzle (explore.md.j2 names the same facets).
    const tracks = data.tracks || [];
    if (data.topics.length) {
      field("topic", "Topic", select([["", "All topics"], ...data.topics.map((t, i) => [String(i), t])]));
    }
    if (data.keywords.length) field("keyword", "Keyword", listInput("paper-explore-keywords", data.keywords));
    if (data.authors.length) field("author", "Author", listInput("paper-explore-authors", data.authors));
    if (data.venues.length) {
      field("venue", "Venue", select([["", "All venues"], ...data.venues.map((v, i) => [String(i), v])]));
    }
    if (tracks.length) {
      field("track", "Track", select([["", "All tracks"], ...tracks.map((t, i) => [String(i), t])]));
    }
    if (tags.length) field("tag", "Tag", listInput("paper-explore-tags", tags));
    if (years.length) {
      field("year", "Year", select([["", "All years"], ...years.map((y) => [String(y), String(y)])]));
    }
    const sortings = [["", "Digest order"], ["title", "Title"]];
    if (years.length) sortings.push(["year", "Year, newest first"], ["-year", "Year, oldest first"]);
    if (window.paperMeaning) sortings.push(["near", "Closeness in meaning to…"]);
    field("sort", "Sort by", select(sortings));
    // The text papers are ordered by closeness to (javascripts/meaning.js runs the digest's model in
    // the browser: fetched the first time this order is asked for).
    if (window.paperMeaning) {
      const near = element("input");
      near.type = "search";
      near.placeholder = "a question, a topic, an abstract";
      field("near", "Close in meaning to", near);
      near.closest("label").hidden = true;
    }
    const nearOrders = new Map(); // text → papers, closest first
    const clear = element("button", "md-button paper-explore__clear", "Clear");
    clear.type = "reset";
    form.append(clear);

    const count = element("p", "paper-explore__count");
    count.setAttribute("aria-live", "polite");
    const results = element("ol", "paper-list paper-explore__results");
    const more = element("button", "md-button paper-explore__more");
    more.type = "button";
    container.replaceChildren(form, count, results, more);

    let matches = [];
    let shown = 0;

    // The filter values as the URL keeps them: names, not positions, so a shared link stays readable.
    function readState() {
      const state = {};
      const params = new URLSearchParams(location.search);
      for (const name of [...FILTERS, "sort", "near"]) state[name] = (params.get(name) || "").trim();
      return state;
    }

    function stateFromForm() {
      // A facet without a control (nothing has it) filters nothing.
      const value = (name) => (controls[name] ? controls[name].value.trim() : "");
      return {
        topic: value("topic") ? data.topics[Number(value("topic"))] || "" : "",
        keyword: value("keyword"),
        author: value("author"),
        venue: value("venue") ? data.venues[Number(value("venue"))] || "" : "",
        track: value("track") ? tracks[Number(value("track"))] || "" : "",
        tag: value("tag"),
        year: value("year"),
        sort: value("sort"),
        near: value("sort") === "near" ? value("near") : "",
      };
    }

    function fillForm(state) {
      const set = (name, value) => {
        if (controls[name]) controls[name].value = value;
      };
      const position = (list, name) => (list.indexOf(name) >= 0 ? String(list.indexOf(name)) : "");
      set("topic", position(data.topics, state.topic));
      set("keyword", state.keyword);
      set("author", state.author);
      set("venue", position(data.venues, state.venue));
      set("track", position(tracks, state.track));
      set("tag", state.tag);
      set("year", years.includes(Number(state.year)) ? state.year : "");
      const sorts = [...controls.sort.options].map((option) => option.value);
      set("sort", sorts.includes(state.sort) ? state.sort : "");
      if (controls.near) {
        controls.near.value = state.near || "";
        controls.near.closest("label").hidden = controls.sort.value !== "near";
      }
    }

    function writeUrl(state) {
      const params = new URLSearchParams();
      for (const name of [...FILTERS, "sort", "near"]) if (state[name]) params.set(name, state[name]);
      const query = params.toString();
      const address = location.pathname + (query ? `?${query}` : "") + location.hash;
      if (address !== location.pathname + location.search + location.hash) {
        history.replaceState(history.state, "", address);
      }
    }

    // Each order is computed once, the first time it is asked for; a filter then keeps the papers of
    // the order that match, so no redraw sorts.
    const orders = { "": papers };
    function ordered(sort, nearText) {
      if (sort === "near") return nearOrders.get(nearText) || papers;
      if (!orders[sort]) {
        const key = (p) => p.title.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
        const keys = papers.map(key);
        const compare = {
          title: (a, b) => (keys[a.position] < keys[b.position] ? -1 : keys[a.position] > keys[b.position] ? 1 : 0),
          year: (a, b) => (b.year || 0) - (a.year || 0) || a.position - b.position,
          "-year": (a, b) => (a.year || 1e9) - (b.year || 1e9) || a.position - b.position,
        }[sort];
        if (!compare) return papers;
        orders[sort] = [...papers].sort(compare);
      }
      return orders[sort];
    }

    function matching(state) {
      const topic = state.topic ? data.topics.indexOf(state.topic) : null;
      const venue = state.venue ? data.venues.indexOf(state.venue) : null;
      const track = state.track ? tracks.indexOf(state.track) : null;
      const keyword = state.keyword ? keywordIndex.get(state.keyword.toLowerCase()) ?? -2 : null;
      const author = state.author ? authorIndex.get(state.author.toLowerCase()) ?? -2 : null;
      const tag = state.tag ? tagIndex.get(state.tag.toLowerCase()) ?? -2 : null;
      const year = state.year ? Number(state.year) : null;
      return ordered(state.sort, state.near).filter(
        (p) =>
          (topic === null || p.topic === topic) &&
          (venue === null || p.venue === venue) &&
          (track === null || p.track === track) &&
          (year === null || p.year === year) &&
          (keyword === null || p.keywordIds.includes(keyword)) &&
          (tag === null || p.tagIds.includes(tag)) &&
          (author === null || p.authorIds.includes(author)),
      );
    }

    function showMore() {
      const fragment = document.createDocumentFragment();
      const end = Math.min(matches.length, shown + PAGE);
      for (let i = shown; i < end; i += 1) fragment.append(paperItem(data, matches[i]));
      results.append(fragment);
      shown = end;
      more.hidden = shown >= matches.length;
      more.textContent = `Show ${Math.min(PAGE, matches.length - shown)} more`;
    }

    function redraw(state) {
      const started = performance.now();
      matches = matching(state);
      const total = papers.length;
      count.textContent =
        matches.length === total
          ? `All ${total} papers`
          : `${matches.length} of ${total} papers`;
      results.replaceChildren();
      shown = 0;
      showMore();
      container.dataset.count = String(matches.length);
      container.paperDigestRedrawMs = performance.now() - started;
    }

    // Closeness to a text is computed once per text, then filtered like any order.
    async function withNearOrder(state) {
      if (!controls.near) return;
      controls.near.closest("label").hidden = state.sort !== "near";
      if (state.sort !== "near" || !state.near || nearOrders.has(state.near)) return;
      count.textContent = "Reading the text for its meaning…";
      const scores = await window.paperMeaning.closeness(state.near);
      const ranked = papers.filter((p) => scores.has(p.id)).sort((a, b) => scores.get(b.id) - scores.get(a.id));
      nearOrders.set(state.near, [...ranked, ...papers.filter((p) => !scores.has(p.id))]);
    }

    async function onChange() {
      const state = stateFromForm();
      writeUrl(state);
      try {
        await withNearOrder(state);
      } catch (error) {
        console.warn("Paper Digest: ordering by meaning failed", error);
      }
      if (JSON.stringify(stateFromForm()) === JSON.stringify(state)) redraw(state);
    }

    form.addEventListener("change", onChange);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      onChange();
    });
    // A typed name filters as soon as it is a whole known name, or is emptied.
    for (const [name, index] of [
      ["keyword", keywordIndex],
      ["author", authorIndex],
      ["tag", tagIndex],
    ]) {
      if (!controls[name]) continue;
      controls[name].addEventListener("input", () => {
        const value = controls[name].value.trim().toLowerCase();
        if (!value || index.has(value)) onChange();
      });
    }
    form.addEventListener("reset", () => setTimeout(onChange, 0));
    more.addEventListener("click", showMore);

    const state = readState();
    fillForm(state);
    redraw(state);
    container.dataset.ready = "yes";
    if (state.sort === "near" && state.near) onChange();
  }

  // --- My list ------------------------------------------------------------------------------

  function setUpSaved(container) {
    if (container.dataset.ready) return;
    container.dataset.ready = "loading";
    // With papers saved, the recommendations' script and files come while the list's data does (the
    // first answer waits for neither in turn); a failure shows when the recommendations are drawn.
    if (loadSaved().length && window.paperMeaning) {
      recommender()
        .then((engine) => engine.ready())
        .catch(() => {});
    }
    Promise.all([loadData(container), followMoves()])
      .then(([data]) => buildSaved(container, data))
      .catch((error) => showError(container, error));
  }

  // The recommendations' script, loaded on My list only (the other pages never need it).
  const RECOMMENDED = 20;
  let recommenderPromise = null;
  function recommender() {
    if (window.paperRecommend) return Promise.resolve(window.paperRecommend);
    if (!recommenderPromise) {
      recommenderPromise = new Promise((resolve, reject) => {
        const tag = document.createElement("script");
        tag.src = new URL("javascripts/recommend.js", ROOT).href;
        tag.onload = () => (window.paperRecommend ? resolve(window.paperRecommend) : reject(new Error("recommend.js")));
        tag.onerror = () => reject(new Error(`${tag.src}: not loaded`));
        document.head.append(tag);
      });
      recommenderPromise.catch(() => (recommenderPromise = null));
    }
    return recommenderPromise;
  }

  function download(name, type, text) {
    const link = element("a");
    link.href = URL.createObjectURL(new Blob([text], { type }));
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  }

  // A saved paper's BibTeX entry, read from its page (the one place it is written).
  async function bibtexOf(url) {
    const response = await fetch(new URL(url, ROOT));
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const code = page.querySelector(".paper-bibtex code");
    if (!code) throw new Error(`${url}: no BibTeX entry`);
    return code.textContent.trim();
  }

  function buildSaved(container, data) {
    const byUrl = new Map(data.papers.map((row, i) => [row[0], paperOf(data, row, i)]));
    const byId = new Map([...byUrl.values()].map((paper) => [paper.id, paper]));

    const toolbar = element("p", "paper-saved__toolbar");
    const exportBib = element("button", "md-button md-button--primary", "Export BibTeX");
    const exportJson = element("button", "md-button", "Export JSON");
    const importJson = element("button", "md-button", "Import JSON");
    const file = element("input");
    file.type = "file";
    file.accept = "application/json,.json";
    file.hidden = true;
    for (const button of [exportBib, exportJson, importJson]) button.type = "button";
    toolbar.append(exportBib, " ", exportJson, " ", importJson, file);
    const status = element("p", "paper-saved__status");
    status.setAttribute("aria-live", "polite");
    const count = element("p", "paper-saved__count");
    const list = element("ol", "paper-list paper-saved__list");
    const goneNote = element("p", "paper-saved__gone-note");
    const goneList = element("ul", "paper-list paper-saved__gone");
    const recommended = element("section", "paper-recommended");
    recommended.hidden = true;
    recommended.setAttribute("aria-labelledby", "recommended-for-you");
    const recommendedHeading = element("h2", null, "Recommended for you");
    recommendedHeading.id = "recommended-for-you";
    const recommendedNote = element("p", "paper-recommended__note");
    recommendedNote.setAttribute("aria-live", "polite");
    const recommendedList = element("ol", "paper-list paper-recommended__list");
    recommended.append(recommendedHeading, recommendedNote, recommendedList);
    container.replaceChildren(count, toolbar, status, list, goneNote, goneList, recommended);

    function current() {
      // Papers this digest still has, in the order they were saved.
      return loadSaved()
        .map((item) => byUrl.get(item.url))
        .filter(Boolean);
    }

    // Saved papers the digest no longer has (their pages were removed): shown by the title saved
    // with them, each with a button that takes it off the list.
    function gone() {
      return loadSaved().filter((item) => !byUrl.has(item.url));
    }

    function drawGone() {
      const items = gone();
      goneNote.textContent = items.length
        ? `${items.length} saved ${items.length === 1 ? "paper is" : "papers are"} no longer in this digest:`
        : "";
      const fragment = document.createDocumentFragment();
      for (const item of items) {
        const entry = element("li", "paper-item");
        const remove = element("button", "md-button paper-saved__forget", "Remove");
        remove.type = "button";
        remove.addEventListener("click", () => {
          storeSaved(loadSaved().filter((saved) => saved.url !== item.url));
          redraw();
        });
        entry.append(element("span", null, typeof item.title === "string" ? item.title : item.url), " ", remove);
        fragment.append(entry);
      }
      goneList.replaceChildren(fragment);
    }

    function redraw() {
      drawGone();
      const papers = current();
      count.textContent = papers.length
        ? `${papers.length} saved ${papers.length === 1 ? "paper" : "papers"}.`
        : gone().length
          ? "None of your saved papers is in this digest now."
          : "No saved papers yet: star (☆) a paper on its page or in any list of papers.";
      const fragment = document.createDocumentFragment();
      for (const paper of papers) fragment.append(paperItem(data, paper));
      list.replaceChildren(fragment);
      exportBib.disabled = exportJson.disabled = papers.length === 0;
      drawRecommended(papers);
    }
    container.paperDigestRedraw = redraw;

    // Papers closest to the saved ones (javascripts/recommend.js, from the vectors search by meaning
    // ships), each naming the saved paper it is closest to. Absent where the digest has no vectors.
    let asked = 0;
    async function drawRecommended(papers) {
      const question = ++asked;
      // A digest built without search by meaning has no vectors (and a meaning.js that defines nothing).
      if (!papers.length || !window.paperMeaning) {
        recommended.hidden = true;
        recommendedList.replaceChildren();
        return;
      }
      let found;
      try {
        const engine = await recommender();
        found = await engine.recommend(papers.map((paper) => paper.id), RECOMMENDED);
      } catch (error) {
        recommended.hidden = true;
        console.warn("Paper Digest: no recommendations", error);
        return;
      }
      if (question !== asked) return; // the list changed meanwhile: a newer answer is coming
      const fragment = document.createDocumentFragment();
      for (const { id, closest } of found) {
        const paper = byId.get(id);
        const near = byId.get(closest);
        if (!paper || !near) continue;
        const item = paperItem(data, paper);
        const because = element("span", "paper-recommended__because", "Closest to your saved paper ");
        const link = element("a", null, near.title);
        link.href = new URL(near.url, ROOT).href;
        because.append(link);
        item.append(because);
        fragment.append(item);
      }
      const shown = fragment.childNodes.length;
      recommendedNote.textContent = shown
        ? `Papers of this digest closest in meaning to the ${papers.length === 1 ? "paper" : `${papers.length} papers`} you saved, found in this browser; star one to refine the list.`
        : "";
      recommendedList.replaceChildren(fragment);
      recommended.hidden = shown === 0;
    }

    exportBib.addEventListener("click", async () => {
      status.textContent = "Collecting the BibTeX entries…";
      try {
        const entries = await Promise.all(current().map((paper) => bibtexOf(paper.url)));
        download("my-papers.bib", "application/x-bibtex", entries.join("\n\n") + "\n");
        status.textContent = `Exported ${entries.length} BibTeX ${entries.length === 1 ? "entry" : "entries"}.`;
      } catch (error) {
        status.textContent = `Export failed: ${error.message}`;
      }
    });

    exportJson.addEventListener("click", () => {
      const saved = new Map(loadSaved().map((item) => [item.url, item]));
      const papers = current().map((paper) => ({
        id: paper.id,
        title: paper.title,
        authors: paper.authors,
        year: paper.year,
        url: new URL(paper.url, ROOT).href,
        saved: saved.get(paper.url)?.saved || null,
      }));
      const text = JSON.stringify({ digest: ROOT.href, exported: new Date().toISOString(), papers }, null, 1);
      download("my-papers.json", "application/json", text + "\n");
      status.textContent = `Exported ${papers.length} ${papers.length === 1 ? "paper" : "papers"} as JSON.`;
    });

    importJson.addEventListener("click", () => file.click());
    file.addEventListener("change", async () => {
      const chosen = file.files && file.files[0];
      file.value = "";
      if (!chosen) return;
      try {
        const parsed = JSON.parse(await chosen.text());
        const entries = Array.isArray(parsed) ? parsed : parsed && Array.isArray(parsed.papers) ? parsed.papers : null;
        if (!entries) throw new Error("expected a list of papers, as Export JSON writes it");
        const list = loadSaved();
        const have = new Set(list.map((item) => item.url));
        let added = 0;
        let unknown = 0;
        for (const entry of entries) {
          // A paper is matched by its id, or failing that by its page's address.
          let paper = entry && typeof entry.id === "string" ? byId.get(entry.id) : undefined;
          if (!paper && entry && typeof entry.url === "string") paper = byUrl.get(siteRelative(entry.url) || entry.url);
          if (!paper) {
            unknown += 1;
            continue;
          }
          if (have.has(paper.url)) continue;
          have.add(paper.url);
          list.push({ url: paper.url, title: paper.title, saved: typeof entry.saved === "string" ? entry.saved : new Date().toISOString() });
          added += 1;
        }
        storeSaved(list);
        redraw();
        status.textContent =
          `Imported ${added} ${added === 1 ? "paper" : "papers"}` + (unknown ? `; ${unknown} not in this digest.` : ".");
      } catch (error) {
        status.textContent = `Import failed: ${error.message}`;
      }
    });

    redraw();
    container.dataset.ready = "yes";
  }

  // --- links to Explore on a paper page ------------------------------------------------------

  // A paper page names its authors, venue, year, its keywords without a page of their own and the
  // reader's tags in spans; each becomes a link to Explore filtered by it.
  const FILTER_SPANS = ["author", "venue", "track", "year", "keyword", "tag"];
  function linkToExplore(article) {
    for (const holder of article.querySelectorAll("[data-explore]")) {
      const explore = new URL(holder.dataset.explore, location.href);
      for (const name of FILTER_SPANS) {
        for (const span of holder.querySelectorAll(`span[data-${name}]`)) {
          const target = new URL(explore);
          target.search = new URLSearchParams({ [name]: span.textContent }).toString();
          const link = element("a", null, span.textContent);
          link.href = target.href;
          span.replaceWith(link);
        }
      }
    }
  }

  // --- every page -----------------------------------------------------------------------------

  function setUpPage() {
    followMoves().then(repaintStars);
    const article = document.querySelector("article.md-content__inner");
    if (article) {
      linkToExplore(article);
      addStars(article);
    }
    document.querySelectorAll(".paper-explore").forEach(setUpExplore);
    document.querySelectorAll(".paper-saved").forEach(setUpSaved);
  }

  if (typeof document$ !== "undefined") document$.subscribe(setUpPage);
  else document.addEventListener("DOMContentLoaded", setUpPage);
  // Another tab changed the list.
  window.addEventListener("storage", (event) => {
    if (event.key === STORE) {
      repaintStars();
      const saved = document.querySelector(".paper-saved");
      if (saved && saved.paperDigestRedraw) saved.paperDigestRedraw();
    }
  });
})();

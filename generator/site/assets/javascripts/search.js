// The header's search box, over the site's Pagefind index (pagefind/, written at build by
// generator/finish/search_index.py). Pagefind fetches only what a query needs: its entry files and
// WebAssembly once, then the index chunks of the typed words and one fragment per result shown, so
// the first result takes about as long at 50,000 papers as at 50.
//
// The box is Material's own search markup and styles (header box on a desktop, a button and a full
// screen on a phone, light and dark), built here because Material draws it only with its own search
// plugin, which the site leaves out. Keys as in Material: "/", "s" or "f" opens it, Escape closes it,
// the arrow keys walk the results and Enter opens one. Everything that comes from the index is put
// in the page as text, never as HTML.
//
// The results are one ranking of the word matches and the papers nearest in meaning, weighted by what
// the query is (fusedRanking). Meaning comes from javascripts/meaning.js: its quick encoder (about 4 MB,
// fetched when the box opens) unless the reader pressed "Full model" (the digest's own model, about
// 48 MB, fetched on that press); the choice is remembered on every page of the site.
(() => {
  "use strict";

  const script = document.currentScript;
  const ROOT = new URL("../", script ? script.src : location.href);
  const PAGEFIND = new URL("pagefind/pagefind.js", ROOT);
  const SHOWN = 10; // results drawn at once; "more" draws the next ones
  const EXCERPT_WORDS = 30;
  const SVG = "http://www.w3.org/2000/svg";
  const ICONS = {
    magnify:
      "M9.5 3A6.5 6.5 0 0 1 16 9.5c0 1.61-.59 3.09-1.56 4.23l.27.27h.79l5 5-1.5 1.5-5-5v-.79l-.27-.27A6.52 6.52 0 0 1 9.5 16 6.5 6.5 0 0 1 3 9.5 6.5 6.5 0 0 1 9.5 3m0 2C7 5 5 7 5 9.5S7 14 9.5 14 14 12 14 9.5 12 5 9.5 5",
    back: "M20 11v2H8l5.5 5.5-1.42 1.42L4.16 12l7.92-7.92L13.5 5.5 8 11z",
    close:
      "M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12z",
  };

  // Material's words for the result count, in the site's language (from the page's __config).
  function translations() {
    const config = document.getElementById("__config");
    try {
      return (config && JSON.parse(config.textContent).translations) || {};
    } catch (error) {
      return {};
    }
  }
  const WORDS = translations();
  const say = (key, fallback, count) =>
    (WORDS[key] || fallback).replace("#", count === undefined ? "" : count.toLocaleString());

  // --- the index -------------------------------------------------------------------------------

  let engine = null;
  function pagefind() {
    if (!engine) {
      engine = import(PAGEFIND.href).then(async (module) => {
        // Results' addresses are relative to the site's root, wherever it is served (a /repo/ subpath).
        await module.options({ baseUrl: ROOT.pathname, excerptLength: EXCERPT_WORDS });
        await module.init();
        return module;
      });
      engine.catch((error) => {
        engine = null;
        console.warn("Paper Digest: search could not load", error);
      });
    }
    return engine;
  }

  // Words too common to narrow a search (lunr's English list, which Material's search dropped too):
  // each one's index chunk lists most pages of a large digest (250 KB for "with" at 50,000 papers).
  const STOP_WORDS = new Set(
    (
      "a able about across after all almost also am among an and any are as at be because been but by can " +
      "cannot could dear did do does either else ever every for from get got had has have he her hers him " +
      "his how however i if in into is it its just least let like likely may me might most must my neither " +
      "no nor not of off often on only or other our own rather said say says she should since so some than " +
      "that the their them then there these they this tis to too twas us wants was we were what when where " +
      "which while who whom why will with would yet you your"
    ).split(" "),
  );
  const SHORTEST_LAST_WORD = 3;
  const SETTLED_WORD = 4;
  // Keys closer together than this are one query. A last word still being typed that is short waits
  // longer: it matches as a prefix, and a short prefix fetches the index chunks of many words.
  const DEBOUNCE_MS = 50;
  const DEBOUNCE_SHORT_WORD_MS = 150;

  // A reader's query as Pagefind reads it, and how long to wait for more keys before searching it.
  // Every word is required anyway, so quotes and + signs are dropped, and so are common words and
  // one-character ones (unless there is nothing else: Pagefind indexes "GPT-4" as "gpt4" and "gpt",
  // never "4", so "GPT 4" would find nothing), and a last word still being typed while it is shorter than
  // 3 letters: "deep l" searches "deep" until "deep lea", instead of fetching the chunks of every word
  // that starts with "l".
  function cleaned(query) {
    const words = query.replace(/["+]/g, " ").trim().split(/\s+/).filter(Boolean);
    const typing = !/\s$/.test(query) && words.length > 0;
    if (typing && words.length > 1 && words[words.length - 1].length < SHORTEST_LAST_WORD) words.pop();
    const kept = words.filter((word) => word.length > 1 && !STOP_WORDS.has(word.toLowerCase()));
    const searched = kept.length ? kept : words;
    const last = searched[searched.length - 1] || "";
    const settled = !typing || last !== words[words.length - 1] || last.length >= SETTLED_WORD;
    return { text: searched.join(" "), wait: settled ? DEBOUNCE_MS : DEBOUNCE_SHORT_WORD_MS };
  }

  // --- the box ---------------------------------------------------------------------------------

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function icon(...names) {
    return names.map((name) => {
      const svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("viewBox", "0 0 24 24");
      svg.setAttribute("aria-hidden", "true");
      const path = document.createElementNS(SVG, "path");
      path.setAttribute("d", ICONS[name]);
      svg.append(path);
      return svg;
    });
  }

  function toggle() {
    return document.getElementById("__search");
  }

  // Material's search markup (partials/search.html), without its data-md-component names, which
  // would have Material's script look for its own search there.
  function buildBox() {
    const button = element("label", "md-header__button md-icon");
    button.htmlFor = "__search";
    button.title = "Search";
    button.append(...icon("magnify"));

    const box = element("div", "md-search paper-search");
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-label", "Search");
    const overlay = element("label", "md-search__overlay");
    overlay.htmlFor = "__search";
    const inner = element("div", "md-search__inner");
    inner.setAttribute("role", "search");
    const form = element("form", "md-search__form");
    const input = element("input", "md-search__input");
    input.type = "text";
    input.name = "query";
    input.placeholder = "Search";
    input.setAttribute("aria-label", "Search");
    input.setAttribute("autocapitalize", "off");
    input.setAttribute("autocorrect", "off");
    input.setAttribute("autocomplete", "off");
    input.setAttribute("spellcheck", "false");
    input.required = true;
    const back = element("label", "md-search__icon md-icon");
    back.htmlFor = "__search";
    back.append(...icon("magnify", "back"));
    const options = element("nav", "md-search__options");
    options.setAttribute("aria-label", "Search");
    const reset = element("button", "md-search__icon md-icon");
    reset.type = "reset";
    reset.title = "Clear";
    reset.setAttribute("aria-label", "Clear");
    reset.tabIndex = -1;
    reset.append(...icon("close"));
    options.append(reset);
    form.append(input, back, options);

    const output = element("div", "md-search__output");
    const scroll = element("div", "md-search__scrollwrap");
    scroll.tabIndex = 0;
    const result = element("div", "md-search-result");
    const meta = element("div", "md-search-result__meta", say("search.result.placeholder", "Type to start searching"));
    // The full model's switch, above the results (its label and state are set by showChoice).
    const meaning = element("button", "paper-search-meaning");
    meaning.type = "button";
    meaning.hidden = typeof window.paperMeaning === "undefined";
    const list = element("ol", "md-search-result__list");
    list.setAttribute("role", "presentation");
    result.append(meaning, meta, list);
    scroll.append(result);
    output.append(scroll);
    inner.append(form, output);
    box.append(overlay, inner);
    return { button, box, form, input, reset, meaning, meta, list, scroll };
  }

  // --- results ---------------------------------------------------------------------------------

  // The words around the first match after the title (which the result shows above), with the
  // matched words marked. Built from the page's indexed text and Pagefind's word positions, as text
  // nodes: nothing from the index is read as HTML.
  const EXCERPT_LEAD = 8; // words before the match
  function excerptNodes(data) {
    const words = (data.content || "").split(/\s+/);
    const titleWords = ((data.meta && data.meta.title) || "").split(/\s+/).filter(Boolean).length;
    const matched = new Set(data.locations || []);
    const first = [...matched].filter((at) => at >= titleWords).sort((a, b) => a - b)[0];
    const start = first === undefined ? titleWords : Math.max(titleWords, first - EXCERPT_LEAD);
    const end = Math.min(words.length, start + EXCERPT_WORDS);
    const nodes = [];
    let text = start > titleWords ? "… " : "";
    for (let at = start; at < end; at++) {
      const space = at + 1 < end ? " " : "";
      if (matched.has(at)) {
        if (text) nodes.push(document.createTextNode(text));
        nodes.push(element("mark", null, words[at]));
        text = space;
      } else text += words[at] + space;
    }
    if (end < words.length) text += " …";
    if (text) nodes.push(document.createTextNode(text));
    return nodes;
  }

  function resultItem(data) {
    const item = element("li", "md-search-result__item");
    const link = element("a", "md-search-result__link");
    link.href = new URL(data.url, location.href).href;
    link.tabIndex = -1;
    const article = element("article", "md-search-result__article md-typeset");
    const title = element("h1", null, (data.meta && data.meta.title) || data.url);
    article.append(title);
    const authors = data.meta && data.meta.authors;
    if (authors) article.append(element("p", "paper-search-authors", authors.replace(/\s+/g, " ").trim()));
    const excerpt = element("p", "paper-search-excerpt");
    excerpt.append(...excerptNodes(data));
    article.append(excerpt);
    link.append(article);
    item.append(link);
    return item;
  }

  // A paper that word search did not find: its title, authors and the abstract's opening.
  function meaningItem(paper) {
    const item = element("li", "md-search-result__item");
    const link = element("a", "md-search-result__link");
    link.href = paper.url;
    link.tabIndex = -1;
    const article = element("article", "md-search-result__article md-typeset");
    article.append(element("h1", null, paper.title));
    if (paper.authors) article.append(element("p", "paper-search-authors", paper.authors));
    article.append(element("p", "paper-search-excerpt", paper.snippet));
    link.append(article);
    item.append(link);
    return item;
  }

  // Word matches and meaning matches in one ranking (javascripts/meaning.js weighs them): the first
  // FUSED of each side ranked together, then the word matches past those in Pagefind's order, so every
  // word match stays reachable. Also how many papers meaning added (those word search did not find).
  const FUSED = 50; // of each side
  async function fusedRanking(text, wordResults, meaningResults, model) {
    const words = await Promise.all(wordResults.slice(0, FUSED).map((result) => result.data()));
    const entries = new Map();
    const wordUrls = words.map((data) => {
      const url = new URL(data.url, location.href).href;
      entries.set(url, { word: data });
      return url;
    });
    let added = 0;
    const meaningUrls = meaningResults.slice(0, FUSED).map((paper) => {
      if (!entries.has(paper.url)) {
        entries.set(paper.url, { meaning: paper });
        added += 1;
      }
      return paper.url;
    });
    const ranking = window.paperMeaning
      .fuse(text, wordUrls, wordResults.length, meaningUrls, model)
      .map((url) => entries.get(url));
    return { ranking: ranking.concat(wordResults.slice(FUSED)), added, nearest: meaningUrls.length };
  }

  // What the count says: the word matches (documents: keyword and topic pages are matched too), then
  // the papers meaning added, out of how many nearest were ranked with them.
  function fusedCount(wordTotal, added, nearest) {
    const words =
      wordTotal === 0
        ? "No page has every word"
        : wordTotal === 1
          ? say("search.result.one", "1 matching document")
          : say("search.result.other", "# matching documents", wordTotal);
    if (!nearest) return words;
    return `${words} · ${added.toLocaleString()} more of the ${nearest.toLocaleString()} papers nearest in meaning`;
  }

  const FULL_MODEL_DEBOUNCE_MS = 150; // the full model takes 15–50 ms a query: wait for more keys first

  // The reader's choice of encoder, on the switch: pressed for the full model (with a tick, so the
  // state shows without colour), its download stated as the build measured it.
  function showChoice(meaning, about) {
    const full = window.paperMeaning.choice() === window.paperMeaning.FULL;
    meaning.setAttribute("aria-pressed", String(full));
    meaning.textContent = about && !about.quick ? "Also by meaning" : "Full model";
    if (full) meaning.prepend("\u2713 ");
    const size = about && about.fullBytes ? ` (${(about.fullBytes / 1e6).toFixed(1)} MB, fetched once)` : "";
    meaning.title = about && !about.quick
      ? `Rank papers by what the query means too, with the digest's model${size}`
      : `Rank by meaning with the digest's full model${size} instead of the quick encoder`;
  }

  function setUpBox(parts) {
    const { input, reset, meta, list, scroll, form, meaning } = parts;
    const hasMeaning = typeof window.paperMeaning !== "undefined";
    let about = null; // what meaning.js ships: the quick encoder? the full model's bytes
    const learnAbout = () =>
      hasMeaning
        ? window.paperMeaning.about().then(
            (found) => {
              about = found;
              showChoice(meaning, about);
              return about;
            },
            () => null,
          )
        : Promise.resolve(null);
    if (hasMeaning) showChoice(meaning, null);
    let current = 0; // the query being answered; a later one makes earlier answers stale
    let found = [];
    let drawn = 0;
    let more = null;

    const open = () => {
      const search = toggle();
      if (search && !search.checked) search.checked = true;
      pagefind(); // start loading while the reader types
      if (hasMeaning) {
        learnAbout();
        window.paperMeaning.prepare(); // the reader's encoder, likewise
      }
    };
    const close = () => {
      const search = toggle();
      if (search) search.checked = false;
      input.blur();
    };

    async function drawMore(answer) {
      const batch = found.slice(drawn, drawn + SHOWN);
      drawn += batch.length;
      if (more) more.remove();
      const items = await Promise.all(
        batch.map(async (result) =>
          result.data ? resultItem(await result.data()) : result.word ? resultItem(result.word) : meaningItem(result.meaning),
        ),
      );
      if (answer !== current) return;
      list.append(...items);
      more = null;
      if (drawn < found.length) {
        more = element("li", "md-search-result__item paper-search-more");
        const label = `Show ${Math.min(SHOWN, found.length - drawn)} more of ${(found.length - drawn).toLocaleString()}`;
        const button = element("button", "md-search-result__link", label);
        button.type = "button";
        button.addEventListener("click", () => drawMore(answer));
        more.append(button);
        list.append(more);
      }
    }

    async function answerByMeaning(answerId, query, model) {
      const full = model === window.paperMeaning.FULL;
      if (full) meta.textContent = "Searching by meaning…";
      await new Promise((resolve) => setTimeout(resolve, full ? FULL_MODEL_DEBOUNCE_MS : query.wait));
      if (answerId !== current) return;
      let fused;
      let wordTotal;
      const asked = input.value.trim();
      try {
        const module = await pagefind();
        const [words, nearest] = await Promise.all([
          query.text ? module.search(query.text) : { results: [] },
          window.paperMeaning.search(asked, FUSED, model),
        ]);
        if (answerId !== current) return;
        wordTotal = words.results.length;
        fused = await fusedRanking(asked, words.results, nearest, model);
      } catch (error) {
        if (answerId === current) meta.textContent = "Search by meaning is unavailable";
        console.warn("Paper Digest: search by meaning failed", error);
        return;
      }
      if (answerId !== current) return;
      found = fused.ranking;
      drawn = 0;
      more = null;
      list.replaceChildren();
      meta.textContent = found.length === 0 ? say("search.result.none", "No matching documents") : fusedCount(wordTotal, fused.added, fused.nearest);
      meta.dataset.mode = model; // which encoder answered, and to what (the tests and benchmarks read it)
      meta.dataset.query = asked;
      await drawMore(answerId);
    }

    // The encoder a query is answered with: the reader's choice; without the quick encoder (another
    // model than the one its recipe was fitted for), meaning only when the full model is chosen.
    async function meaningModel() {
      if (!hasMeaning) return null;
      const model = window.paperMeaning.choice();
      if (model === window.paperMeaning.FULL) return model;
      const known = about || (await learnAbout());
      return known && known.quick ? model : null;
    }

    async function answer() {
      const answerId = ++current;
      const asked = input.value.trim();
      const query = cleaned(input.value);
      const model = input.value.trim() ? await meaningModel() : null;
      if (answerId !== current) return;
      if (model) return answerByMeaning(answerId, query, model);
      if (!query.text) {
        list.replaceChildren();
        meta.textContent = say("search.result.placeholder", "Type to start searching");
        return;
      }
      let search;
      try {
        const module = await pagefind();
        search = await module.debouncedSearch(query.text, {}, query.wait);
      } catch (error) {
        if (answerId === current) meta.textContent = "Search is unavailable";
        console.warn("Paper Digest: search failed", error);
        return;
      }
      if (search === null || answerId !== current) return; // a later keystroke took over
      found = search.results;
      drawn = 0;
      more = null;
      list.replaceChildren();
      delete meta.dataset.mode;
      meta.dataset.query = asked;
      meta.textContent =
        found.length === 0
          ? say("search.result.none", "No matching documents")
          : found.length === 1
            ? say("search.result.one", "1 matching document")
            : say("search.result.other", "# matching documents", found.length);
      await drawMore(answerId);
    }

    meaning.addEventListener("click", () => {
      const { FULL, QUICK } = window.paperMeaning;
      window.paperMeaning.choose(window.paperMeaning.choice() === FULL ? QUICK : FULL);
      showChoice(meaning, about);
      window.paperMeaning.prepare(); // the full model is fetched on the first press only
      input.focus();
      answer();
    });
    input.addEventListener("focus", open);
    input.addEventListener("input", answer);
    form.addEventListener("submit", (event) => event.preventDefault());
    form.addEventListener("reset", () => {
      setTimeout(answer); // after the box is emptied
      input.focus();
    });
    reset.addEventListener("click", () => input.focus());
    // A result opened (instant navigation keeps the header): close the search.
    list.addEventListener("click", (event) => {
      if (event.target.closest("a")) close();
    });

    const links = () => [...list.querySelectorAll("a.md-search-result__link")];
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        const first = links()[0];
        if (first) {
          event.preventDefault();
          first.click();
        }
      } else if (event.key === "ArrowDown") {
        const first = links()[0];
        if (first) {
          event.preventDefault();
          first.focus();
        }
      }
    });
    scroll.addEventListener("keydown", (event) => {
      const all = links();
      const at = all.indexOf(document.activeElement);
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const next = at + (event.key === "ArrowDown" ? 1 : -1);
        if (next < 0) input.focus();
        else if (next < all.length) all[next].focus();
      }
    });
  }

  function editing(target) {
    return (
      target instanceof HTMLElement &&
      (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
    );
  }

  let parts = null; // the box in the header

  function setUpKeys() {
    document.addEventListener("keydown", (event) => {
      const search = toggle();
      if (!search || !parts || event.metaKey || event.ctrlKey || event.altKey) return;
      if (search.checked) {
        if (event.key === "Escape") {
          event.preventDefault();
          search.checked = false;
          parts.input.blur();
        }
      } else if ((event.key === "/" || event.key === "s" || event.key === "f") && !editing(event.target)) {
        event.preventDefault();
        parts.input.focus();
        parts.input.select();
      }
    });
    // The phone's search button ticks the toggle: the box then takes the typing.
    toggle()?.addEventListener("change", (event) => {
      if (!parts) return;
      if (event.target.checked) parts.input.focus();
      else parts.input.blur();
    });
  }

  // --- the 404 page ----------------------------------------------------------------------------

  // The words of a missing address, as a query: "/repo/papers/graph-mix-for-nodes-c407fd/" is
  // "graph mix for nodes" (a page's id suffix and the site's folders are no words to search for).
  function addressWords(path) {
    const segments = decodeURIComponent(path)
      .replace(/\.html?$/i, "")
      .split("/")
      .filter((segment) => segment && segment !== "index");
    const root = ROOT.pathname.split("/").filter(Boolean).length;
    const own = segments.slice(root).filter((segment) => !/^(papers|keywords|topics|browse|keyword-list)$/.test(segment));
    const last = own[own.length - 1] || "";
    return last
      .split(/[-_+.\s]+/)
      .filter((word) => word && !/^[0-9a-f]{6,}$/i.test(word) && !/^\d+$/.test(word))
      .join(" ");
  }

  // The 404 page's form (theme/404.html), hidden until here: it types its query into the header's
  // box and searches, as if the reader had typed it there.
  function setUpNotFound() {
    const form = document.querySelector("form.paper-not-found");
    if (!form || !parts || form.dataset.ready) return;
    const query = form.querySelector("input");
    query.value = addressWords(location.pathname);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      parts.input.value = query.value;
      parts.input.focus();
      parts.input.dispatchEvent(new Event("input"));
    });
    form.hidden = false;
    form.dataset.ready = "yes";
  }

  // The header stays across instant navigation, so the box is built once; a page without the box
  // (the first one, or one loaded whole) gets it.
  function setUpPage() {
    const header = document.querySelector(".md-header__inner");
    if (!header || !toggle()) return;
    if (!header.querySelector(".paper-search")) {
      if (!parts) setUpKeys();
      parts = buildBox();
      const source = header.querySelector(".md-header__source");
      if (source) source.before(parts.button, parts.box);
      else header.append(parts.button, parts.box);
      setUpBox(parts);
    }
    setUpNotFound();
  }

  // For benchmarks/search_relevance.py, which asks Pagefind what this box would.
  window.paperSearch = { cleaned };

  if (typeof document$ !== "undefined") document$.subscribe(setUpPage);
  else document.addEventListener("DOMContentLoaded", setUpPage);
})();

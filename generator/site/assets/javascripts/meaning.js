// Search by meaning, in the reader's browser: the reader's text embedded, then the papers nearest to
// it by the build's vectors (meaning/, written by generator/site/meaning_index.py). Two encoders:
//
// - "quick" (the default): a static table of token vectors distilled from the digest's own model at
//   build time, averaged and mapped into the model's space (generator/analysis/query_encoder.py):
//   about 4 MB, fetched when the search box opens, a query in well under a millisecond;
// - "full": the digest's own model (all-MiniLM-L6-v2 exported to ONNX, int8, run by onnxruntime-web's
//   WebAssembly), about 48 MB, fetched only when the reader chooses it.
//
// The reader's choice is kept in localStorage, so every page of the site uses it. Both are served by
// the site; the browser's cache keeps what was fetched.
//
// The tokenizer is BERT's (lower-casing, accents stripped, punctuation split, then WordPiece over the
// model's vocab.txt), as the build's Hugging Face tokenizer reads text.
(() => {
  "use strict";

  const script = document.currentScript;
  const ROOT = new URL("../", script ? script.src : location.href);
  const FOLDER = new URL("meaning/", ROOT);
  const RUNTIME = new URL("javascripts/vendor/onnxruntime-web/", ROOT);

  // --- the tokenizer ---------------------------------------------------------------------------

  const PUNCTUATION = /^[\p{P}\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/u;
  const CJK = /[\u4e00-\u9fff\u3400-\u4dbf\u{20000}-\u{2a6df}\u{2a700}-\u{2b73f}\u{2b740}-\u{2b81f}\u{2b820}-\u{2ceaf}\uf900-\ufaff\u{2f800}-\u{2fa1f}]/u;
  const CONTROL = /[\p{Cc}\p{Cf}]/u;
  const MAX_WORD_CHARACTERS = 100;

  // BERT's basic tokenizer: words and single punctuation marks.
  function basicTokens(text, lowercase) {
    let cleaned = "";
    for (const character of text) {
      const code = character.codePointAt(0);
      if (code === 0 || code === 0xfffd) continue;
      if (/\s/u.test(character)) cleaned += " ";
      else if (CONTROL.test(character)) continue;
      else if (CJK.test(character)) cleaned += ` ${character} `;
      else cleaned += character;
    }
    const tokens = [];
    for (let word of cleaned.split(" ")) {
      if (!word) continue;
      if (lowercase) word = word.toLowerCase().normalize("NFD").replace(/\p{Mn}/gu, "");
      let current = "";
      for (const character of word) {
        if (PUNCTUATION.test(character)) {
          if (current) tokens.push(current);
          tokens.push(character);
          current = "";
        } else current += character;
      }
      if (current) tokens.push(current);
    }
    return tokens;
  }

  // WordPiece: the longest piece of the vocabulary at each point, "##" marking a word's continuation.
  function wordPieces(word, vocabulary, unknown) {
    if ([...word].length > MAX_WORD_CHARACTERS) return [unknown];
    const pieces = [];
    let start = 0;
    while (start < word.length) {
      let end = word.length;
      let found = null;
      while (start < end) {
        const piece = (start > 0 ? "##" : "") + word.slice(start, end);
        if (vocabulary.has(piece)) {
          found = vocabulary.get(piece);
          break;
        }
        end -= 1;
      }
      if (found === null) return [unknown];
      pieces.push(found);
      start = end;
    }
    return pieces;
  }

  function tokenIds(text, tokenizer) {
    const { vocabulary, lowercase, maxTokens } = tokenizer;
    const unknown = vocabulary.get("[UNK]");
    const ids = [vocabulary.get("[CLS]")];
    for (const word of basicTokens(text, lowercase)) {
      for (const id of wordPieces(word, vocabulary, unknown)) {
        if (ids.length < maxTokens - 1) ids.push(id);
      }
    }
    ids.push(vocabulary.get("[SEP]"));
    return ids;
  }

  // --- the model and the index -----------------------------------------------------------------

  let loading = null;
  const fetched = { bytes: 0 }; // what this page fetched for meaning search, for the benchmarks

  async function fetchBytes(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    const buffer = await response.arrayBuffer();
    fetched.bytes += buffer.byteLength;
    return buffer;
  }

  async function fetchJson(url) {
    return JSON.parse(new TextDecoder().decode(await fetchBytes(url)));
  }

  // A vector file: n float32 scales, then n × dimensions int8 values.
  function vectorFile(buffer, dimensions) {
    const count = buffer.byteLength / (4 + dimensions);
    return {
      count,
      scales: new Float32Array(buffer, 0, count),
      values: new Int8Array(buffer, 4 * count, count * dimensions),
    };
  }

  function dequantised(file) {
    const width = file.values.length / file.count;
    const out = new Float32Array(file.values.length);
    for (let row = 0; row < file.count; row++) {
      for (let axis = 0; axis < width; axis++) out[row * width + axis] = file.values[row * width + axis] * file.scales[row];
    }
    return out;
  }

  function scores(query, file, dimensions) {
    const out = new Float32Array(file.count);
    for (let row = 0; row < file.count; row++) {
      let sum = 0;
      const offset = row * dimensions;
      for (let axis = 0; axis < dimensions; axis++) sum += query[axis] * file.values[offset + axis];
      out[row] = sum * file.scales[row];
    }
    return out;
  }

  // The index (what the files hold) and the papers' vectors' entry files: needed by both encoders.
  let indexLoading = null;
  function indexState() {
    if (!indexLoading) {
      indexLoading = (async () => {
        const index = await fetchJson(new URL("index.json", FOLDER));
        const state = { index, rows: new Map(), codes: new Map(), papers: new Map() };
        if (index.clusters.length > 1) {
          const [centroids, codebook] = await Promise.all([
            fetchBytes(new URL("centroids.bin", FOLDER)),
            fetchBytes(new URL("codebook.bin", FOLDER)),
          ]);
          state.centroids = vectorFile(centroids, index.dimensions);
          state.codebook = dequantised(vectorFile(codebook, index.dimensions / index.code_bytes));
        }
        return state;
      })();
      indexLoading.catch(() => (indexLoading = null));
    }
    return indexLoading;
  }

  let vocabularyLoading = null;
  function tokenizerState() {
    if (!vocabularyLoading) {
      vocabularyLoading = (async () => {
        const [{ index }, buffer] = await Promise.all([indexState(), fetchBytes(new URL("vocab.txt", FOLDER))]);
        const vocabulary = new Map();
        new TextDecoder()
          .decode(buffer)
          .split("\n")
          .forEach((token, id) => {
            if (token && !vocabulary.has(token)) vocabulary.set(token, id);
          });
        return { vocabulary, lowercase: index.tokenizer.lowercase, maxTokens: index.tokenizer.max_tokens };
      })();
      vocabularyLoading.catch(() => (vocabularyLoading = null));
    }
    return vocabularyLoading;
  }

  // The quick encoder: the kept tokens' ids (int32), their vectors, the map and the hidden layer
  // added to it (vector files).
  let quickLoading = null;
  function quickEncoder() {
    if (!quickLoading) {
      quickLoading = (async () => {
        const { index } = await indexState();
        const encoder = index.encoder;
        if (!encoder) throw new Error("this digest has no quick encoder");
        const [tokenizer, ids, vectors, map, hiddenIn, hiddenOut] = await Promise.all([
          tokenizerState(),
          fetchBytes(new URL(encoder.ids, FOLDER)),
          fetchBytes(new URL(encoder.vectors, FOLDER)),
          fetchBytes(new URL(encoder.map, FOLDER)),
          fetchBytes(new URL(encoder.hidden_in, FOLDER)),
          fetchBytes(new URL(encoder.hidden_out, FOLDER)),
        ]);
        const rows = new Map();
        new Int32Array(ids).forEach((token, row) => rows.set(token, row));
        return {
          tokenizer,
          rows,
          vectors: vectorFile(vectors, encoder.dimensions),
          map: vectorFile(map, index.dimensions),
          bias: Float32Array.from(encoder.bias),
          hiddenIn: vectorFile(hiddenIn, encoder.hidden),
          hiddenBias: Float32Array.from(encoder.hidden_bias),
          hiddenOut: vectorFile(hiddenOut, index.dimensions),
          dimensions: encoder.dimensions,
        };
      })();
      quickLoading.catch(() => (quickLoading = null));
    }
    return quickLoading;
  }

  // Adds `weight` times row `row` of a vector file (int8 values times the row's scale) into `out`.
  function addRow(out, file, row, weight) {
    const scaled = weight * file.scales[row];
    const width = out.length;
    for (let axis = 0; axis < width; axis++) out[axis] += scaled * file.values[row * width + axis];
  }

  // The text's vector by the quick encoder: the mean of its kept tokens' vectors (no [CLS], [SEP]),
  // times the map, plus the bias and the hidden layer's ReLU units times their rows, normalised
  // (query_encoder.QueryEncoder.mapped). No kept token: null (it is near nothing).
  async function embedQuick(text) {
    const quick = await quickEncoder();
    const { vocabulary } = quick.tokenizer;
    const unknown = vocabulary.get("[UNK]");
    const sum = new Float32Array(quick.dimensions);
    let count = 0;
    for (const word of basicTokens(text, quick.tokenizer.lowercase)) {
      for (const id of wordPieces(word, vocabulary, unknown)) {
        const row = quick.rows.get(id);
        if (row === undefined) continue;
        addRow(sum, quick.vectors, row, 1);
        count += 1;
      }
    }
    if (!count) return null;
    const out = Float32Array.from(quick.bias);
    const hidden = Float32Array.from(quick.hiddenBias);
    sum.forEach((total, axis) => {
      const value = total / count;
      if (!value) return;
      addRow(out, quick.map, axis, value);
      addRow(hidden, quick.hiddenIn, axis, value);
    });
    hidden.forEach((unit, row) => {
      if (unit > 0) addRow(out, quick.hiddenOut, row, unit); // ReLU
    });
    const norm = Math.hypot(...out);
    return norm > 0 ? out.map((value) => value / norm) : null;
  }

  // The full model: its vocabulary, the ONNX session and the runtime.
  async function load() {
    const [state, tokenizer, model, ort] = await Promise.all([
      indexState(),
      tokenizerState(),
      fetchBytes(new URL("model.onnx", FOLDER)),
      import(new URL("ort.wasm.bundle.min.mjs", RUNTIME).href),
    ]);
    // One thread: several need a cross-origin-isolated page, which GitHub Pages cannot serve.
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.proxy = false;
    // Only the WebAssembly file is named: its JavaScript glue is inside the bundle already.
    ort.env.wasm.wasmPaths = { wasm: new URL("ort-wasm-simd-threaded.wasm", RUNTIME).href };
    const session = await ort.InferenceSession.create(new Uint8Array(model), {
      executionProviders: ["wasm"],
      graphOptimizationLevel: "all",
    });
    return { ...state, ort, session, tokenizer };
  }

  function ready() {
    if (!loading) {
      loading = load();
      loading.catch((error) => {
        loading = null;
        console.warn("Paper Digest: search by meaning could not load", error);
      });
    }
    return loading;
  }

  // The text's vector by the full model.
  async function embed(text) {
    const state = await ready();
    const ids = tokenIds(text, state.tokenizer);
    const shape = [1, ids.length];
    const feeds = {
      input_ids: new state.ort.Tensor("int64", BigInt64Array.from(ids, BigInt), shape),
      attention_mask: new state.ort.Tensor("int64", new BigInt64Array(ids.length).fill(1n), shape),
    };
    const output = await state.session.run(feeds);
    return Float32Array.from(output.sentence_embedding.data);
  }

  function cached(map, key, make) {
    if (!map.has(key)) {
      const promise = make();
      map.set(key, promise);
      promise.catch(() => map.delete(key));
    }
    return map.get(key);
  }

  function top(values, count) {
    return [...values.keys()].sort((a, b) => values[b] - values[a]).slice(0, count);
  }

  // A paper's place in the files' order (clusters one after another), which the result files follow.
  function clusterStarts(index) {
    const starts = [];
    index.clusters.reduce((start, size) => (starts.push(start), start + size), 0);
    return starts;
  }

  // Each coded paper's estimated cosine: its centroid's, plus, for each code byte, the query's dot
  // product with the sub-vector the byte names (a table made once per query).
  function estimates(table, centroidScore, codes, index) {
    const { code_bytes: bytes, codewords } = index;
    const out = new Float32Array(codes.length / bytes);
    for (let row = 0; row < out.length; row++) {
      let sum = centroidScore;
      for (let part = 0; part < bytes; part++) sum += table[part * codewords + codes[row * bytes + part]];
      out[row] = sum;
    }
    return out;
  }

  function lookupTable(query, state) {
    const { code_bytes: bytes, codewords, dimensions } = state.index;
    const width = dimensions / bytes;
    const table = new Float32Array(bytes * codewords);
    for (let part = 0; part < bytes; part++) {
      for (let word = 0; word < codewords; word++) {
        let sum = 0;
        const offset = (part * codewords + word) * width;
        for (let axis = 0; axis < width; axis++) sum += query[part * width + axis] * state.codebook[offset + axis];
        table[part * codewords + word] = sum;
      }
    }
    return table;
  }

  // The papers a query reaches with their scores, best first: all papers, exactly, up to 3,500; past
  // that, those of the probed clusters, the best estimates ranked exactly by their int8 vectors first,
  // the other estimates after them.
  async function scored(query) {
    const state = await indexState();
    const { index } = state;
    if (!state.centroids) {
      const file = await cached(state.rows, "all", async () =>
        vectorFile(await fetchBytes(new URL("vectors-0.bin", FOLDER)), index.dimensions),
      );
      const candidates = [];
      scores(query, file, index.dimensions).forEach((score, place) => candidates.push({ place, score }));
      return candidates.sort((a, b) => b.score - a.score);
    }
    const centroidScores = scores(query, state.centroids, index.dimensions);
    const probed = top(centroidScores, index.probe);
    const codeFiles = await Promise.all(
      probed.map((cluster) =>
        cached(state.codes, cluster, async () => new Uint8Array(await fetchBytes(new URL(`codes-${cluster}.bin`, FOLDER)))),
      ),
    );
    const table = lookupTable(query, state);
    const starts = clusterStarts(index);
    const candidates = [];
    codeFiles.forEach((codes, at) => {
      const start = starts[probed[at]];
      estimates(table, centroidScores[probed[at]], codes, index).forEach((score, row) =>
        candidates.push({ place: start + row, score }),
      );
    });
    candidates.sort((a, b) => b.score - a.score);
    const shortlist = candidates.slice(0, index.rerank);
    const perFile = index.rows_per_file;
    const rowFiles = await Promise.all(
      shortlist.map(({ place }) => {
        const file = Math.floor(place / perFile);
        return cached(state.rows, file, async () =>
          vectorFile(await fetchBytes(new URL(`rows-${file}.bin`, FOLDER)), index.dimensions),
        );
      }),
    );
    const reranked = shortlist
      .map(({ place }, at) => {
        const file = rowFiles[at];
        const row = place % perFile;
        let sum = 0;
        for (let axis = 0; axis < index.dimensions; axis++) sum += query[axis] * file.values[row * index.dimensions + axis];
        return { place, score: sum * file.scales[row] };
      })
      .sort((a, b) => b.score - a.score);
    // The rest keep their estimates' order, below every exactly ranked paper.
    const floor = reranked.length ? reranked[reranked.length - 1].score : 0;
    const rest = candidates.slice(index.rerank).map(({ place, score }) => ({ place, score: Math.min(score, floor) }));
    return reranked.concat(rest);
  }

  // What the result at `place` shows: [id, url, title, authors, snippet].
  async function resultRow(place) {
    const state = await indexState();
    const size = state.index.results_per_file;
    const file = Math.floor(place / size);
    const rows = await cached(state.papers, file, () => fetchJson(new URL(`papers-${file}.json`, FOLDER)));
    return rows[place % size];
  }

  function paper([id, url, title, authors, snippet], score) {
    return { id, url: new URL(url, ROOT).href, title, authors, snippet, score };
  }

  // --- which encoder: the reader's choice ------------------------------------------------------

  const CHOICE_KEY = "paper-digest-meaning-model";
  const QUICK = "quick";
  const FULL = "full";
  function choice() {
    try {
      return localStorage.getItem(CHOICE_KEY) === FULL ? FULL : QUICK;
    } catch (error) {
      return QUICK; // storage blocked: the default, every page
    }
  }
  function choose(model) {
    try {
      if (model === FULL) localStorage.setItem(CHOICE_KEY, FULL);
      else localStorage.removeItem(CHOICE_KEY);
    } catch (error) {
      // storage blocked: the choice lasts this page only
    }
  }

  // The query's vector by `model` (the reader's choice unless named): null when it has none.
  async function queryVector(text, model = choice()) {
    return model === FULL ? embed(text) : embedQuick(text);
  }

  // The papers nearest to `text`: [{id, url, title, authors, snippet, score}], best first.
  async function search(text, count = 10, model = choice()) {
    const query = await queryVector(text, model);
    if (!query) return [];
    const best = (await scored(query)).slice(0, count);
    const rows = await Promise.all(best.map(({ place }) => resultRow(place)));
    return best.map(({ score }, at) => paper(rows[at], score));
  }

  // Closeness to `text` by paper id, for Explore's order: every paper up to 3,500; past that, those of
  // the probed clusters (the others have none and keep their order after).
  async function closeness(text, model = choice()) {
    const query = await queryVector(text, model);
    if (!query) return new Map();
    const candidates = await scored(query);
    const state = await indexState();
    const ids = await cached(state.papers, "ids", () => fetchJson(new URL("ids.json", FOLDER)));
    return new Map(candidates.map(({ place, score }) => [ids[place], score]));
  }

  // What the search box says about the encoders: whether the quick one ships, and the full model's
  // download (the model, the runtime's WebAssembly and script, as the build measured them).
  async function about() {
    const { index } = await indexState();
    return { quick: Boolean(index.encoder), fullBytes: index.full_model_bytes || 0 };
  }

  // Fetch what the reader's choice needs before the first query (the search box opens).
  function prepare() {
    const model = choice();
    const loading = model === FULL ? ready() : indexState().then(({ index }) => index.encoder && quickEncoder());
    loading.catch(() => {});
    return loading;
  }

  // --- one ranking of word and meaning matches ----------------------------------------------

  const RANK_OFFSET = 60; // reciprocal rank fusion's k: the first ranks count little more than the next

  // How much each side counts for a query, by how many pages word search matched (it requires every
  // word): a few matches are precise, and count fully; many mean a broad query, whose word ranking
  // says less than its meaning (P@10 on three query sets in benchmarks/search_relevance.py: plain
  // fusion 0.329 / 0.272 / 0.540, this 0.325 / 0.275 / 0.553; either beats both sides on each).
  // The quick encoder's ranking is less sure than the full model's: it counts three quarters of any
  // word matches' (on the same sets, chosen for the linear encoder: 0.316 / 0.280 / 0.513 against
  // 0.297 / 0.258 / 0.513 with the full model's weights; with the hidden layer, unchanged: 0.323 /
  // 0.267 / 0.553; benchmarks/notes/meaning-search.md).
  const FEW_WORD_MATCHES = 5;
  const QUICK_MEANING_WEIGHT = 0.75;
  function weights(text, wordTotal, model = FULL) {
    if (model === QUICK) return { word: wordTotal === 0 ? 0 : 1, meaning: QUICK_MEANING_WEIGHT };
    return { word: wordTotal === 0 ? 0 : wordTotal <= FEW_WORD_MATCHES ? 1 : 0.75, meaning: 1 };
  }

  // Weighted reciprocal rank fusion of two rankings (keys, best first): the keys, best first. `model`
  // is the encoder that ranked the meaning side.
  function fuse(text, wordKeys, wordTotal, meaningKeys, model = FULL) {
    const weight = weights(text, wordTotal, model);
    const score = new Map();
    const add = (keys, side) =>
      keys.forEach((key, rank) => score.set(key, (score.get(key) || 0) + side / (RANK_OFFSET + rank)));
    add(wordKeys, weight.word);
    add(meaningKeys, weight.meaning);
    return [...score.keys()].sort((a, b) => score.get(b) - score.get(a));
  }

  window.paperMeaning = {
    search,
    closeness,
    fuse,
    weights,
    embed,
    embedQuick,
    ready,
    prepare,
    about,
    choice,
    choose,
    QUICK,
    FULL,
    fetched,
    tokenIds: async (text) => tokenIds(text, await tokenizerState()),
  };
})();

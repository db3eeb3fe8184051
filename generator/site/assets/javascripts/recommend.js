// Recommended for you (My list): the digest's papers ranked by closeness to the reader's saved ones,
// computed in the reader's browser from the vectors search by meaning already ships (meaning/, written
// by generator/site/meaning_index.py). The model is not needed: only the vectors and the ids are read.
//
// Two rankings, fused by reciprocal rank: a logistic regression of the saved papers against the rest
// of the digest (a few steps of gradient descent from zero: what sets the saved papers apart), and
// each paper's cosine to its closest saved paper (which also names that paper to the reader).
// benchmarks/recommend_quality.py measures it against the saved papers' centroid and arxiv-sanity's
// SVM over tf-idf on NLP tracks and CVPR sessions, and checks that generator/site/recommendations.py,
// its Python twin, gives the same first ten. Up to 3,500 papers every vector is in one file and every
// paper is scored exactly. Past that (an inverted file with product-quantised codes), the rest of the
// digest is stood for by the cluster centroids, each weighing as its cluster's papers; the saved
// papers' clusters and those closest to the model's weights are probed, their codes estimate each
// paper's score and its cosine to each saved paper, and the best estimates are ranked exactly.
(() => {
  "use strict";

  const script = document.currentScript;
  const ROOT = new URL("../", script ? script.src : location.href);
  const FOLDER = new URL("meaning/", ROOT);

  // Chosen on the two labelled sets: chosen on either, the same settings led on the other
  // (benchmarks/notes/recommendations.md). generator/site/recommendations.py holds the same.
  const STEPS = 10;
  const RATE = 32;
  const DECAY = 0;
  const FUSION_OFFSET = 60;
  // Past 3,500 papers, how many of the best estimates are ranked exactly: by the model, and by the
  // cosine to each saved paper. Each is a request for a rows file, and requests are most of the time
  // at 50,000 papers; 200 and 20 a saved paper ranked no better on the labelled sets, partitioned.
  const MODEL_SHORTLIST = 100;
  const PER_SAVED = 10;

  const fetched = { bytes: 0 }; // what recommendations fetched, for the benchmarks

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

  // A vector file (n float32 scales, then n × dimensions int8 values) as one flat float64 array of
  // rows: the products the Python twin computes, so both rank alike. (Kept as int8 and scaled after
  // the products, the regression was slower in V8: each value is converted to a float64 each pass.)
  function vectorFile(buffer, dimensions) {
    const count = buffer.byteLength / (4 + dimensions);
    const scales = new Float32Array(buffer, 0, count);
    const values = new Int8Array(buffer, 4 * count, count * dimensions);
    const rows = new Float64Array(count * dimensions);
    for (let row = 0; row < count; row++) {
      const scale = scales[row];
      for (let axis = row * dimensions; axis < (row + 1) * dimensions; axis++) rows[axis] = values[axis] * scale;
    }
    return { count, dimensions, rows };
  }

  // Row `row` of a matrix (a view, not a copy).
  function rowOf(matrix, row) {
    return matrix.rows.subarray(row * matrix.dimensions, (row + 1) * matrix.dimensions);
  }

  // Rows picked from matrices ([matrix, row] each), as one matrix.
  function gathered(picks, dimensions) {
    const rows = new Float64Array(picks.length * dimensions);
    picks.forEach(([matrix, row], at) => rows.set(rowOf(matrix, row), at * dimensions));
    return { count: picks.length, dimensions, rows };
  }

  function cached(map, key, make) {
    if (!map.has(key)) {
      const promise = make();
      map.set(key, promise);
      promise.catch(() => map.delete(key));
    }
    return map.get(key);
  }

  // The index, the ids and the vectors (or, partitioned, the centroids and the codebook), fetched
  // together: the ids (1 MB at 50,000 papers) come while the index is read and the vectors asked.
  let loading = null;
  async function load() {
    const idsPromise = fetchJson(new URL("ids.json", FOLDER));
    idsPromise.catch(() => {}); // awaited below; a failure is reported there
    const index = await fetchJson(new URL("index.json", FOLDER));
    const state = { index, files: new Map() };
    if (index.clusters.length === 1) {
      state.all = vectorFile(await fetchBytes(new URL("vectors-0.bin", FOLDER)), index.dimensions);
    } else {
      const [centroids, codebook] = await Promise.all([
        fetchBytes(new URL("centroids.bin", FOLDER)),
        fetchBytes(new URL("codebook.bin", FOLDER)),
      ]);
      state.centroids = vectorFile(centroids, index.dimensions);
      state.codebook = vectorFile(codebook, index.dimensions / index.code_bytes).rows;
      state.starts = [];
      index.clusters.reduce((start, size) => (state.starts.push(start), start + size), 0);
    }
    state.ids = await idsPromise;
    state.places = new Map(state.ids.map((id, place) => [id, place]));
    return state;
  }

  function ready() {
    if (!loading) {
      loading = load();
      loading.catch(() => (loading = null));
    }
    return loading;
  }

  // Row `row` of `rows` times row `at` of `vectors`. (Four running sums instead of one were slower in
  // Chromium: 29 ms of the main thread's time a list at 2,634 papers against 26.)
  function dot(rows, row, vectors, at, dimensions) {
    const offset = row * dimensions;
    const other = at * dimensions;
    let sum = 0;
    for (let axis = 0; axis < dimensions; axis++) sum += rows[offset + axis] * vectors[other + axis];
    return sum;
  }

  // Every row's dot product with `vector`.
  function scores(matrix, vector) {
    const out = new Float64Array(matrix.count);
    for (let row = 0; row < matrix.count; row++) out[row] = dot(matrix.rows, row, vector, 0, matrix.dimensions);
    return out;
  }

  // The logistic regression: a matrix's rows, a target (1 saved, 0 not) and a weight each; full-batch
  // gradient descent from zero. Returns the weights (the bias ranks nothing).
  function train(matrix, targets, weights) {
    const { count, dimensions, rows } = matrix;
    const w = new Float64Array(dimensions);
    const gradient = new Float64Array(dimensions);
    let bias = 0;
    for (let step = 0; step < STEPS; step++) {
      gradient.fill(0);
      let biasGradient = 0;
      for (let row = 0; row < count; row++) {
        const margin = dot(rows, row, w, 0, dimensions) + bias;
        const error = weights[row] * (1 / (1 + Math.exp(-margin)) - targets[row]);
        if (error === 0) continue;
        const offset = row * dimensions;
        for (let axis = 0; axis < dimensions; axis++) gradient[axis] += error * rows[offset + axis];
        biasGradient += error;
      }
      for (let axis = 0; axis < dimensions; axis++) w[axis] -= RATE * (gradient[axis] + DECAY * w[axis]);
      bias -= RATE * biasGradient;
    }
    return w;
  }

  // Each of `rows` (of `matrix`): its cosine to its closest saved paper, and which that is (the
  // earlier saved on a tie); `saved` holds the saved papers' rows, in the order of `savedPlaces`.
  function closeness(matrix, rows, saved, savedPlaces) {
    const cosine = new Float64Array(rows.length);
    const closest = new Array(rows.length);
    for (let at = 0; at < rows.length; at++) {
      const row = rows[at];
      cosine[at] = -Infinity;
      for (let other = 0; other < saved.count; other++) {
        const score = dot(matrix.rows, row, saved.rows, other, matrix.dimensions);
        if (score > cosine[at]) {
          cosine[at] = score;
          closest[at] = savedPlaces[other];
        }
      }
    }
    return { cosine, closest };
  }

  // Indices of `scores`, highest first; ties keep their order.
  function ordered(scores) {
    return Array.from(scores.keys()).sort((a, b) => scores[b] - scores[a]);
  }

  // One ranking of the model's and the closeness's (reciprocal rank fusion): a paper very close to
  // one saved paper counts as well as one the model puts near all of them. `candidates` are places
  // in ascending order; ties keep it.
  function fused(candidates, model, near, count) {
    const score = new Float64Array(candidates.length);
    for (const scores of [model, near.cosine]) {
      ordered(scores).forEach((at, rank) => (score[at] += 1 / (FUSION_OFFSET + rank)));
    }
    return ordered(score)
      .slice(0, count)
      .map((at) => ({ place: candidates[at], score: score[at], closest: near.closest[at] }));
  }

  // The exact ranking over one vector file: `saved` are places; [{place, score, closest}], best first.
  function rankAll(all, saved, count) {
    const chosen = new Set(saved);
    const targets = new Float64Array(all.count);
    const weights = new Float64Array(all.count).fill(0.5 / (all.count - chosen.size));
    for (const place of chosen) {
      targets[place] = 1;
      weights[place] = 0.5 / chosen.size;
    }
    const w = train(all, targets, weights);
    const savedRows = gathered(saved.map((place) => [all, place]), all.dimensions);
    const candidates = [];
    for (let place = 0; place < all.count; place++) if (!chosen.has(place)) candidates.push(place);
    const everyScore = scores(all, w);
    const model = Float64Array.from(candidates, (place) => everyScore[place]);
    const near = closeness(all, candidates, savedRows, saved);
    return fused(candidates, model, near, count);
  }

  function rowsFile(state, place) {
    const file = Math.floor(place / state.index.rows_per_file);
    return cached(state.files, `rows-${file}`, async () =>
      vectorFile(await fetchBytes(new URL(`rows-${file}.bin`, FOLDER)), state.index.dimensions),
    );
  }

  // [the vector file holding place's row, the row in it]
  async function placeOf(state, place) {
    return [await rowsFile(state, place), place % state.index.rows_per_file];
  }

  function codesFile(state, cluster) {
    return cached(state.files, `codes-${cluster}`, async () =>
      new Uint8Array(await fetchBytes(new URL(`codes-${cluster}.bin`, FOLDER))),
    );
  }

  function clusterOf(state, place) {
    let cluster = 0;
    while (cluster + 1 < state.starts.length && state.starts[cluster + 1] <= place) cluster++;
    return cluster;
  }

  // The `keep` places of the highest scores, ties to the earlier (as a stable sort's first `keep`):
  // one pass keeping them sorted, rather than sorting every probed paper.
  function best(places, scores, length, keep) {
    const kept = [];
    const keptScores = [];
    for (let at = 0; at < length; at++) {
      const score = scores[at];
      if (kept.length === keep && !(score > keptScores[keep - 1])) continue;
      let slot = kept.length === keep ? keep - 1 : kept.length;
      while (slot > 0 && keptScores[slot - 1] < score) {
        kept[slot] = kept[slot - 1];
        keptScores[slot] = keptScores[slot - 1];
        slot--;
      }
      kept[slot] = places[at];
      keptScores[slot] = score;
    }
    return kept;
  }

  // Past one vector file: the saved papers against the centroids (each weighing as its cluster), then
  // the weights searched for as a query is (see meaning.js).
  async function rankPartitioned(state, saved, count) {
    const { index } = state;
    const dimensions = index.dimensions;
    // The saved papers' own clusters are probed whatever the model: their codes come with the rows.
    const probed = [...new Set(saved.map((place) => clusterOf(state, place)))];
    for (const cluster of probed) codesFile(state, cluster).catch(() => {}); // awaited below
    const savedRows = gathered(await Promise.all(saved.map((place) => placeOf(state, place))), dimensions);
    const clusters = index.clusters.length;
    const training = { count: saved.length + clusters, dimensions, rows: new Float64Array((saved.length + clusters) * dimensions) };
    training.rows.set(savedRows.rows);
    training.rows.set(state.centroids.rows, saved.length * dimensions);
    const targets = new Float64Array(saved.length + clusters);
    const weights = new Float64Array(saved.length + clusters);
    const papers = index.clusters.reduce((sum, size) => sum + size, 0);
    for (let at = 0; at < saved.length; at++) {
      targets[at] = 1;
      weights[at] = 0.5 / saved.length;
    }
    index.clusters.forEach((size, cluster) => (weights[saved.length + cluster] = (0.5 * size) / papers));
    const w = train(training, targets, weights);

    // Then those closest to the weights, as many as a query probes.
    const centroidScores = scores(state.centroids, w);
    const byScore = [...centroidScores.keys()].sort((a, b) => centroidScores[b] - centroidScores[a]);
    for (const cluster of byScore) {
      if (probed.length >= index.probe) break;
      if (!probed.includes(cluster)) probed.push(cluster);
    }
    const codeFiles = await Promise.all(probed.map((cluster) => codesFile(state, cluster)));
    // Estimates from the codes: of the model's score (its weights as the query), and of the cosine
    // to each saved paper; the best of each are ranked exactly by their vectors.
    const chosen = new Set(saved);
    const probedPapers = codeFiles.reduce((sum, codes) => sum + codes.length / index.code_bytes, 0);
    const places = new Int32Array(probedPapers);
    let length = 0;
    codeFiles.forEach((codes, file) => {
      const start = state.starts[probed[file]];
      for (let row = 0; row < codes.length / index.code_bytes; row++) if (!chosen.has(start + row)) places[length++] = start + row;
    });
    const estimates = new Float64Array(length);
    const queries = [w, ...saved.map((_, at) => rowOf(savedRows, at))];
    const shortlist = new Set();
    queries.forEach((query, at) => {
      const table = lookupTable(query, state);
      const centroidScore = scores(state.centroids, query);
      let next = 0;
      codeFiles.forEach((codes, file) => {
        const cluster = probed[file];
        const start = state.starts[cluster];
        for (let row = 0; row < codes.length / index.code_bytes; row++) {
          if (chosen.has(start + row)) continue;
          estimates[next++] = estimate(table, centroidScore[cluster], codes, row, index);
        }
      });
      const keep = at === 0 ? Math.max(MODEL_SHORTLIST, count) : PER_SAVED;
      for (const place of best(places, estimates, length, keep)) shortlist.add(place);
    });
    const shortlisted = [...shortlist].sort((a, b) => a - b);
    const vectors = gathered(await Promise.all(shortlisted.map((place) => placeOf(state, place))), dimensions);
    const model = scores(vectors, w);
    const near = closeness(vectors, shortlisted.map((_, at) => at), savedRows, saved);
    return fused(shortlisted, model, near, count);
  }

  // The dot product of `query` with every codeword, a table looked up per code byte.
  function lookupTable(query, state) {
    const { code_bytes: bytes, codewords, dimensions } = state.index;
    const width = dimensions / bytes;
    const table = new Float64Array(bytes * codewords);
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

  // A coded paper's estimated dot product with the query: its centroid's, plus a looked-up one a byte.
  function estimate(table, centroidScore, codes, row, index) {
    const { code_bytes: bytes, codewords } = index;
    let sum = centroidScore;
    for (let part = 0; part < bytes; part++) sum += table[part * codewords + codes[row * bytes + part]];
    return sum;
  }

  // The `count` papers closest to the saved ones (ids), best first: [{id, score, closest}], `closest`
  // being the id of the saved paper each is closest to. Saved ids the vectors lack are left out.
  async function recommend(savedIds, count = 20) {
    const state = await ready();
    const saved = [...new Set(savedIds)].map((id) => state.places.get(id)).filter((place) => place !== undefined);
    if (!saved.length) return [];
    const ranked = state.all
      ? rankAll(state.all, saved, count)
      : await rankPartitioned(state, saved, count);
    return ranked.map(({ place, score, closest }) => ({ id: state.ids[place], score, closest: state.ids[closest] }));
  }

  window.paperRecommend = { recommend, ready, fetched };
})();

/* git memory: the graph page. Reads the graph (the graph layer's JSON) from the page,
   lays it out cheaply (entries grouped by type, each group a sunflower disk; tags and
   paths at the centre of their entries), draws it as SVG, and handles filters, zoom, pan
   and click-through. No network: everything it needs is in the page. */
(function () {
  "use strict";
  var box = document.getElementById("graph");
  var raw = document.getElementById("graph-data");
  if (!box || !raw) { return; }
  var graph = JSON.parse(raw.textContent);
  var pattern = box.getAttribute("data-entry");
  var NS = "http://www.w3.org/2000/svg";
  var view = { x: 0, y: 0, k: 1 };
  var pos = {};
  var byId = {};
  var about = {};  /* entry id -> list of about-node ids */
  var degree = {};  /* about-node id -> how many entries name it */
  graph.nodes.forEach(function (n) { byId[n.id] = n; });
  graph.edges.forEach(function (e) {
    if (e.kind === "about") {
      (about[e.source] = about[e.source] || []).push(e.target);
      degree[e.target] = (degree[e.target] || 0) + 1;
    }
  });
  /* only the most named tags and paths carry a label: hundreds of labels would hide the
     drawing (every node still has its name as a tooltip and an aria-label) */
  var labelled = {};
  Object.keys(degree).sort(function (a, b) { return degree[b] - degree[a]; }).slice(0, 25)
    .forEach(function (k) { labelled[k] = true; });

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function layout() {
    var groups = {}, order = [];
    graph.nodes.forEach(function (n) {
      if (n.kind !== "entry") { return; }
      var g = n.type || "entry";
      if (!groups[g]) { groups[g] = []; order.push(g); }
      groups[g].push(n);
    });
    order.sort();
    var spacing = 14, golden = Math.PI * (3 - Math.sqrt(5));
    var radii = order.map(function (g) { return spacing * Math.sqrt(groups[g].length) + 30; });
    var cols = Math.max(1, Math.ceil(Math.sqrt(order.length)));
    var cell = 2 * Math.max.apply(null, radii.concat([60])) + 40;
    order.forEach(function (g, i) {
      var cx = (i % cols) * cell, cy = Math.floor(i / cols) * cell;
      groups[g].sort(function (a, b) {
        var ta = (about[a.id] || [""])[0], tb = (about[b.id] || [""])[0];
        return ta < tb ? -1 : ta > tb ? 1 : 0;
      });
      groups[g].forEach(function (n, j) {
        var r = spacing * Math.sqrt(j + 0.5), a = j * golden;
        pos[n.id] = [cx + r * Math.cos(a), cy + r * Math.sin(a)];
      });
    });
    var sums = {};
    graph.edges.forEach(function (e) {
      if (e.kind !== "about" || !pos[e.source]) { return; }
      var s = sums[e.target] || (sums[e.target] = [0, 0, 0]);
      s[0] += pos[e.source][0]; s[1] += pos[e.source][1]; s[2] += 1;
    });
    graph.nodes.forEach(function (n, i) {
      if (n.kind === "entry") { return; }
      var s = sums[n.id];
      /* a little off the centre, by a hash of its position in the list, so two tags of
         the same entries do not sit on top of each other */
      pos[n.id] = s ? [s[0] / s[2] + (i % 7) * 3, s[1] / s[2] + (i % 5) * 3] : [-80, -80 - i * 12];
    });
  }

  function filters() {
    return {
      type: document.getElementById("g-type").value,
      status: document.getElementById("g-status").value,
      tag: document.getElementById("g-tag").value.trim().replace(/^#/, "").toLowerCase(),
      path: document.getElementById("g-path").value.trim()
    };
  }

  function entryShown(n, f) {
    if (f.type && n.type !== f.type) { return false; }
    if (f.status && n.status !== f.status) { return false; }
    var links = about[n.id] || [];
    if (f.tag && !links.some(function (t) { return t.indexOf("tag:") === 0 && t.slice(4).indexOf(f.tag) >= 0; })) { return false; }
    if (f.path && !links.some(function (t) { return t.indexOf("path:") === 0 && t.slice(5).indexOf(f.path) >= 0; })) { return false; }
    return true;
  }

  function render() {
    var t0 = performance.now();
    var f = filters(), shown = {}, parts = [], count = 0, drawn = 0;
    graph.nodes.forEach(function (n) {
      if (n.kind === "entry" && entryShown(n, f)) { shown[n.id] = true; count++; }
    });
    graph.edges.forEach(function (e) {
      if (e.kind === "about" && shown[e.source]) { shown[e.target] = true; }
    });
    graph.edges.forEach(function (e) {
      if (!shown[e.source] || !shown[e.target]) { return; }
      var a = pos[e.source], b = pos[e.target];
      parts.push('<line class="' + esc(e.kind) + '" x1="' + a[0].toFixed(1) + '" y1="' + a[1].toFixed(1) +
        '" x2="' + b[0].toFixed(1) + '" y2="' + b[1].toFixed(1) + '"></line>');
      drawn++;
    });
    graph.nodes.forEach(function (n) {
      if (!shown[n.id]) { return; }
      var p = pos[n.id], x = p[0].toFixed(1), y = p[1].toFixed(1);
      if (n.kind === "entry") {
        var id = n.id.slice(6), r = 4 + 4 * (n.confidence || 0.5);
        parts.push('<a class="n k-entry t-' + esc(n.type) + ' s-' + esc(n.status) + '" href="' +
          esc(pattern.replace("{id}", id)) + '" data-id="' + esc(id) + '"><circle cx="' + x + '" cy="' + y +
          '" r="' + r.toFixed(1) + '"></circle><title>' + esc(n.type + " · " + n.status + ": " + n.label) +
          '</title></a>');
      } else {
        parts.push('<g class="n k-' + esc(n.kind) + '" tabindex="0" role="button" data-key="' + esc(n.id) +
          '" aria-label="' + esc("show entries about " + n.kind + " " + n.label) + '"><circle cx="' + x +
          '" cy="' + y + '" r="6"></circle>' + (labelled[n.id] ? '<text x="' + (p[0] + 8).toFixed(1) + '" y="' +
          (p[1] + 3).toFixed(1) + '">' + esc(n.label) + "</text>" : "") + '<title>' + esc(n.kind + " " + n.label) + '</title></g>');
      }
    });
    box.innerHTML = '<svg xmlns="' + NS + '" role="group" aria-label="memory graph"><g id="viewport">' +
      parts.join("") + "</g></svg>";
    place();
    var ms = performance.now() - t0;
    window.gmGraph = { renderMs: ms, entries: count, edges: drawn, nodes: Object.keys(shown).length };
    document.getElementById("graph-stats").textContent = count + " entries, " + drawn +
      " links, drawn in " + Math.round(ms) + " ms";
  }

  function place() {
    var g = document.getElementById("viewport");
    if (g) { g.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.k + ")"); }
  }

  function fit() {
    var xs = [], ys = [];
    Object.keys(pos).forEach(function (k) { xs.push(pos[k][0]); ys.push(pos[k][1]); });
    if (!xs.length) { return; }
    var minx = Math.min.apply(null, xs), maxx = Math.max.apply(null, xs);
    var miny = Math.min.apply(null, ys), maxy = Math.max.apply(null, ys);
    var w = box.clientWidth || 800, h = box.clientHeight || 500;
    view.k = Math.min(w / (maxx - minx + 80), h / (maxy - miny + 80), 3);
    view.x = (w - (maxx + minx) * view.k) / 2;
    view.y = (h - (maxy + miny) * view.k) / 2;
  }

  function zoom(factor, cx, cy) {
    var w = box.clientWidth || 800, h = box.clientHeight || 500;
    cx = cx === undefined ? w / 2 : cx; cy = cy === undefined ? h / 2 : cy;
    var k = Math.max(0.05, Math.min(20, view.k * factor));
    view.x = cx - (cx - view.x) * (k / view.k);
    view.y = cy - (cy - view.y) * (k / view.k);
    view.k = k;
    place();
  }

  function pickAbout(key) {
    var kind = key.slice(0, key.indexOf(":")), name = key.slice(key.indexOf(":") + 1);
    document.getElementById(kind === "tag" ? "g-tag" : "g-path").value = name;
    render();
  }

  box.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var r = box.getBoundingClientRect();
    zoom(ev.deltaY < 0 ? 1.2 : 1 / 1.2, ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
  var drag = null;
  box.addEventListener("pointerdown", function (ev) {
    if (ev.target.closest("a, [role=button]")) { return; }
    drag = { x: ev.clientX - view.x, y: ev.clientY - view.y };
  });
  window.addEventListener("pointermove", function (ev) {
    if (!drag) { return; }
    view.x = ev.clientX - drag.x; view.y = ev.clientY - drag.y; place();
  });
  window.addEventListener("pointerup", function () { drag = null; });
  box.addEventListener("click", function (ev) {
    var about = ev.target.closest("[data-key]");
    if (about) { pickAbout(about.getAttribute("data-key")); }
  });
  box.addEventListener("keydown", function (ev) {
    var about = ev.target.closest && ev.target.closest("[data-key]");
    if (about && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); pickAbout(about.getAttribute("data-key")); }
  });
  document.getElementById("graph-filters").addEventListener("submit", function (ev) { ev.preventDefault(); render(); });
  ["g-type", "g-status"].forEach(function (id) { document.getElementById(id).addEventListener("change", render); });
  ["g-tag", "g-path"].forEach(function (id) { document.getElementById(id).addEventListener("input", render); });
  document.getElementById("g-zoom-in").addEventListener("click", function () { zoom(1.3); });
  document.getElementById("g-zoom-out").addEventListener("click", function () { zoom(1 / 1.3); });
  document.getElementById("g-reset").addEventListener("click", function () {
    ["g-type", "g-status", "g-tag", "g-path"].forEach(function (id) { document.getElementById(id).value = ""; });
    fit(); render();
  });

  var start = performance.now();
  layout();
  fit();
  render();
  window.gmGraph.totalMs = performance.now() - start;  /* layout and drawing together */
})();

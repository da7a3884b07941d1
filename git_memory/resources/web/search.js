/* git memory: search in the exported static site, from window.GM_INDEX (search-index.js,
   a script rather than a JSON file, because a browser refuses fetch() from file://).
   Scores each entry by the query words it holds (a word in the first line counts more,
   all words present counts most); filters by type, tag and status. No network. */
(function () {
  "use strict";
  var index = window.GM_INDEX || [];
  var form = document.getElementById("search-form");
  var list = document.getElementById("results");
  var note = document.getElementById("search-note");
  if (!form || !list) { return; }
  var prepared = index.map(function (e) {
    var first = e.text.split("\n")[0].toLowerCase();
    return { e: e, text: (e.text + " " + e.tags.join(" ") + " " + e.type).toLowerCase(), first: first };
  });

  function words(q) {
    return q.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter(function (w) { return w.length > 1; });
  }

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function item(e) {
    var first = e.text.trim().split("\n")[0].slice(0, 160);
    var tags = e.tags.map(function (t) { return '<span class="tag">#' + esc(t) + "</span>"; }).join(" ");
    return '<li class="hit" data-id="' + esc(e.id) + '"><a href="entry/' + encodeURIComponent(e.id) +
      '.html">' + esc(first) + '</a><div class="meta"><span class="type t-' + esc(e.type) + '">' +
      esc(e.type) + '</span> <span class="status">' + esc(e.status) + '</span> <span class="id">' +
      esc(e.id.slice(-8).toLowerCase()) + "</span> <time>" + esc(e.created.slice(0, 10)) + "</time> " +
      tags + "</div></li>";
  }

  function run() {
    var q = document.getElementById("q").value, ws = words(q);
    var type = document.getElementById("f-type").value;
    var tag = document.getElementById("f-tag").value.trim().replace(/^#/, "").toLowerCase();
    var status = document.getElementById("f-status").value;
    var found = [];
    prepared.forEach(function (p) {
      var e = p.e;
      if (type && e.type !== type) { return; }
      if (tag && e.tags.indexOf(tag) < 0) { return; }
      if (status && e.status !== status) { return; }
      var score = 0, hits = 0;
      ws.forEach(function (w) {
        if (p.text.indexOf(w) >= 0) { hits++; score += 1 + (p.first.indexOf(w) >= 0 ? 0.5 : 0); }
      });
      if (ws.length && !hits) { return; }
      found.push([score + (hits === ws.length ? ws.length : 0), e]);
    });
    found.sort(function (a, b) { return b[0] - a[0] || (a[1].created < b[1].created ? 1 : -1); });
    var top = found.slice(0, 30);
    list.innerHTML = top.map(function (f) { return item(f[1]); }).join("");
    note.textContent = ws.length || type || tag || status
      ? found.length + " entr" + (found.length === 1 ? "y" : "ies") + (found.length > 30 ? " (first 30 shown)" : "")
      : "The newest entries; type words to search.";
  }

  form.addEventListener("submit", function (ev) { ev.preventDefault(); run(); });
  form.addEventListener("input", run);
  /* no "change" listener: leaving the text box fires one, and drawing the list again under
     the pointer would swallow the click on a result */
  var given = new URLSearchParams(location.search).get("q");
  if (given) { document.getElementById("q").value = given; }
  run();
})();

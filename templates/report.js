"use strict";
(function () {
  var tests = document.getElementById("tests");
  var form = document.getElementById("controls");
  if (!tests || !form) return;
  form.hidden = false;
  var box = document.getElementById("q");
  var sort = document.getElementById("sort");
  var shown = document.getElementById("shown");
  var holder = document.getElementById("files");
  var RANK = { e: 0, f: 1, s: 2, p: 3 };
  var index = null;

  // The rows, read from the page the first time they are needed.
  function rows() {
    if (index) return index;
    index = { files: [], rows: [] };
    var files = holder.querySelectorAll("details.file");
    for (var i = 0; i < files.length; i++) {
      var el = files[i];
      var file = el.querySelector("summary code").textContent;
      var sep = el.getAttribute("data-s");
      var prefix = sep === null ? file + "::" : sep === "" ? "" : file + sep;
      var entry = { el: el, name: file, open: el.open, rows: [], i: i, rank: 3, dur: 0,
        rests: el.querySelectorAll("details.rest") };
      var bodies = el.querySelectorAll("tbody");
      entry.bodies = [];
      for (var b = 0; b < bodies.length; b++) {
        var group = { el: bodies[b], rows: [] };
        entry.bodies.push(group);
        var trs = bodies[b].rows;
        for (var j = 0; j < trs.length; j++) {
          var tr = trs[j];
          // The outcome's letter, then `k` for a flaky test.
          var o = tr.classList[0];
          var d = parseFloat(tr.cells[2].textContent) || 0;
          var cell = tr.cells[0];
          var name = cell.firstChild ? cell.firstChild.textContent : "";
          var row = { el: tr, o: o, k: tr.classList.contains("k"), d: d,
            i: index.rows.length, name: name,
            text: (prefix + cell.textContent).toLowerCase() };
          group.rows.push(row);
          entry.rows.push(row);
          index.rows.push(row);
          entry.rank = Math.min(entry.rank, RANK[o]);
          entry.dur = Math.max(entry.dur, d);
        }
      }
      index.files.push(entry);
    }
    return index;
  }

  function hiddenOutcomes() {
    var off = {};
    var boxes = form.querySelectorAll("input[name=o]");
    for (var i = 0; i < boxes.length; i++) {
      tests.classList.toggle("hide-" + boxes[i].value, !boxes[i].checked);
      if (!boxes[i].checked) off[boxes[i].value] = true;
    }
    return off;
  }

  // Shows the rows the filter and the search keep; opens the files that
  // hold them when they are few enough to read.
  function apply() {
    var off = hiddenOutcomes();
    var q = box.value.trim().toLowerCase();
    var all = rows();
    var total = 0;
    var narrowed = q !== "" || Object.keys(off).length > 0;
    for (var i = 0; i < all.files.length; i++) {
      var f = all.files[i];
      var n = 0;
      for (var j = 0; j < f.rows.length; j++) {
        var r = f.rows[j];
        var match = q === "" || r.text.indexOf(q) >= 0;
        if (r.el.hidden === match) r.el.hidden = !match;
        if (match && !off[r.o] && !(r.k && off.k)) n++;
      }
      f.count = n;
      f.el.hidden = n === 0;
      total += n;
    }
    var open = narrowed && total <= 1000;
    for (var k = 0; k < all.files.length; k++) {
      var file = all.files[k];
      file.el.open = open ? file.count > 0 : file.open;
      for (var m = 0; m < file.rests.length; m++) file.rests[m].open = open;
    }
    shown.textContent = total + " of " + all.rows.length + " tests shown";
  }

  function key(kind) {
    if (kind === "name") return function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : a.i - b.i; };
    if (kind === "outcome") return function (a, b) { return (RANK[a.o] - RANK[b.o]) || a.i - b.i; };
    if (kind === "duration") return function (a, b) { return (b.d - a.d) || a.i - b.i; };
    return function (a, b) { return a.i - b.i; };
  }

  function fileKey(kind) {
    if (kind === "name") return function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : a.i - b.i; };
    if (kind === "outcome") return function (a, b) { return (a.rank - b.rank) || a.i - b.i; };
    if (kind === "duration") return function (a, b) { return (b.dur - a.dur) || a.i - b.i; };
    return function (a, b) { return a.i - b.i; };
  }

  // Orders the rows of each table, and the files.
  function reorder() {
    var all = rows();
    var by = key(sort.value);
    for (var i = 0; i < all.files.length; i++) {
      var bodies = all.files[i].bodies;
      for (var b = 0; b < bodies.length; b++) {
        var data = bodies[b].rows.slice().sort(by);
        var frag = document.createDocumentFragment();
        for (var j = 0; j < data.length; j++) frag.appendChild(data[j].el);
        bodies[b].el.appendChild(frag);
      }
    }
    var files = all.files.slice().sort(fileKey(sort.value));
    var fragment = document.createDocumentFragment();
    for (var k = 0; k < files.length; k++) fragment.appendChild(files[k].el);
    holder.appendChild(fragment);
  }

  var timer = 0;
  box.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(apply, 120);
  });
  form.addEventListener("change", function (e) {
    if (e.target === sort) reorder(); else apply();
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); });

  // Printing shows everything, whatever was folded or filtered.
  var before = [];
  window.addEventListener("beforeprint", function () {
    before = Array.prototype.filter.call(document.querySelectorAll("details"), function (d) {
      return !d.open;
    });
    before.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () {
    before.forEach(function (d) { d.open = false; });
    before = [];
  });
})();

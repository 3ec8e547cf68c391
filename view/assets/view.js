// svmc view: draws the timeline held in #svmc-data (see view/data.go for its
// layout) on one canvas. One lane per processor, one row per nesting depth;
// regions are solid bars, waiting is hatched, held locks and critical
// sections are light bars with a border, measured intervals dark bars
// labelled with their name in white, messages lines from the send to the
// completed receive, other records are ticks in a strip
// under the rows. Everything is drawn from arrays of numbers, so that a
// trace of 1e5 intervals still pans smoothly: each row's intervals are
// sorted and do not overlap, so the visible ones are found by binary search.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('svmc-data').textContent);
  var meta = D.meta, IV = D.iv, IN = D['in'], K = D.kinds, S = D.sites, MS = D.msg || [], MK = D.marks || [];
  // LOD: a large trace's summaries (view/lodpage.go); detail: the part of
  // the run [a, b] whose records IV and IN hold then (svmc view --serve).
  var LOD = D.lod || null, detail = null, lodCells = 0, pending = null, asked = null;
  var SRC = D.src || [], GC = D.gc || [];
  // hl: the sites of the source line picked (their bars are outlined);
  // sel: the part of the run whose statistics the side panel shows.
  var hl = null, hlWhere = '', sel = null;
  var ROW = 18, ISTRIP = 9, LGAP = 10, AXIS = 24, GUT = 44, PAD = 12;
  var MINROW = 18, MAXROW = 30;
  var canvas = document.getElementById('canvas'), ctx = canvas.getContext('2d');
  var box = document.getElementById('timeline'), tip = document.getElementById('tip');
  var statusEl = document.getElementById('status'), rangeEl = document.getElementById('range');

  var fix = {};

  // Lanes: rows[d] lists the intervals at depth d in time order (the data
  // is sorted by processor, then by opening order). A large trace's lanes
  // have the rows of their summaries too.
  var lanes = [], p, totalH = 0, totalRows = 0;
  if (meta.lanes) meta.lanes.forEach(function (n) { GUT = Math.max(GUT, 14 + 7 * n.length); });
  function index() {
    fix = {};
    D.fixMask = {};
    D.fix.forEach(function (f) { fix[f[0]] = [f[1], f[2]]; D.fixMask[f[0]] = f[3]; });
    lanes = [];
    totalRows = 0;
    for (p = 0; p < meta.procs; p++) lanes.push({ rows: [], inst: [] });
    IV.forEach(function (v, i) {
      var L = lanes[v[0]];
      while (L.rows.length <= v[3]) L.rows.push([]);
      L.rows[v[3]].push(i);
    });
    IN.forEach(function (v, i) { lanes[v[0]].inst.push(i); });
    lanes.forEach(function (L, q) {
      L.nrows = Math.max(L.rows.length, LOD && LOD.lanes[q] ? LOD.lanes[q].rows.length : 0, 1);
      totalRows += L.nrows;
    });
  }
  index();
  if (LOD) document.getElementById('states').hidden = true; // no consistent order in a large trace's page

  // layout places the lanes; rows grow to fill the height of the window
  // when there are few of them.
  function layout() {
    var free = box.clientHeight - AXIS - 6 - lanes.length * (ISTRIP + LGAP);
    ROW = Math.max(MINROW, Math.min(MAXROW, Math.floor(free / Math.max(totalRows, 1))));
    var y = AXIS + 6;
    lanes.forEach(function (L) {
      L.y = y;
      L.h = L.nrows * ROW + ISTRIP;
      y += L.h + LGAP;
    });
    totalH = y;
  }

  var span = meta.span > 0 ? meta.span : 1;
  var v0 = 0, v1 = span, W = 0, PW = 1, firstDraw = true;
  var X = function (t) { return GUT + (t - v0) / (v1 - v0) * PW; };
  var T = function (x) { return v0 + (x - GUT) / PW * (v1 - v0); };

  // Fill styles per kind: a colour, a hatch pattern for waiting.
  function shade(hex, f) {
    var n = parseInt(hex.slice(1), 16), r = n >> 16, g = (n >> 8) & 255, b = n & 255;
    return 'rgb(' + Math.round(r * f) + ',' + Math.round(g * f) + ',' + Math.round(b * f) + ')';
  }
  function hatch(color) {
    var c = document.createElement('canvas');
    c.width = c.height = 6;
    var g = c.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, 6, 6);
    g.strokeStyle = color;
    g.lineWidth = 1.6;
    g.beginPath();
    g.moveTo(-1, 7); g.lineTo(7, -1);
    g.moveTo(-1, 1); g.lineTo(1, -1);
    g.moveTo(5, 7); g.lineTo(7, 5);
    g.stroke();
    return ctx.createPattern(c, 'repeat');
  }
  var fills = []; // per kind, made in resize

  function firstEnding(arr, t) { // first k with IV[arr[k]] ending at or after t
    var lo = 0, hi = arr.length;
    while (lo < hi) {
      var m = (lo + hi) >> 1;
      if (IV[arr[m]][5] < t) lo = m + 1; else hi = m;
    }
    return lo;
  }
  function firstAt(arr, t) { // first k with IN[arr[k]] at or after t
    var lo = 0, hi = arr.length;
    while (lo < hi) {
      var m = (lo + hi) >> 1;
      if (IN[arr[m]][3] < t) lo = m + 1; else hi = m;
    }
    return lo;
  }

  function niceStep(raw) {
    var e = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / e;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * e;
  }
  function decimals(step) { return Math.max(0, Math.min(6, -Math.floor(Math.log10(step) + 1e-9))); }
  function fmtTick(t, step) {
    if (step >= 1e5) return (t / 1e6).toFixed(decimals(step / 1e6)) + ' s';
    if (step >= 100) return (t / 1e3).toFixed(decimals(step / 1e3)) + ' ms';
    return t.toFixed(decimals(step)) + ' µs';
  }
  function fmtDur(us) {
    var a = Math.abs(us);
    if (a < 1e3) return us.toFixed(3) + ' µs';
    if (a < 1e6) return (us / 1e3).toFixed(3) + ' ms';
    return (us / 1e6).toFixed(4) + ' s';
  }

  var nameWidth = {};
  function label(text, key, x, w, yy) {
    var tw = nameWidth[key];
    if (tw === undefined) tw = nameWidth[key] = ctx.measureText(text).width;
    var room = w - 6;
    if (tw > room) {
      var n = Math.floor(text.length * (room - 8) / tw);
      if (n < 2) return;
      text = text.slice(0, n) + '…';
    }
    ctx.fillText(text, x + 3, yy);
  }

  function draw() {
    ctx.clearRect(0, 0, W, totalH);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    var bars = 0, waits = 0, measures = 0, events = 0, lit = 0;
    lanes.forEach(function (L, p) {
      ctx.fillStyle = p % 2 ? '#f3f5f8' : '#fcfcfd';
      ctx.fillRect(0, L.y - LGAP / 2, W, L.h + LGAP);
    });
    // Time axis and grid.
    var step = niceStep((v1 - v0) * 110 / PW);
    ctx.strokeStyle = '#e2e4e8';
    ctx.fillStyle = '#555';
    ctx.lineWidth = 1;
    var ticks = [];
    for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      var gx = Math.round(X(t)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(gx, AXIS - 8);
      ctx.lineTo(gx, totalH);
      ctx.stroke();
      ticks.push([gx, t]);
    }
    var right = GUT + PW;
    var gcs = drawGC(right);
    var summary = LOD && !covered();
    lodCells = 0;
    lanes.forEach(function (L, lp) {
      if (summary) {
        lodCells += drawLOD(L, lp, right);
        return;
      }
      for (var d = 0; d < L.rows.length; d++) {
        var arr = L.rows[d], yy = L.y + d * ROW + 1, hh = ROW - 2, lastPx = -1, lastKind = -1;
        for (var k = firstEnding(arr, v0); k < arr.length; k++) {
          var i = arr[k], v = IV[i];
          if (v[4] > v1) break;
          var x0 = Math.max(X(v[4]), GUT), x1 = Math.min(X(v[5]), right), w = Math.max(x1 - x0, 1);
          var kd = K[v[1]], f = fills[v[1]], on = hl !== null && hl[v[2]] === true;
          if (on) lit++;
          // Zoomed out, many bars share a pixel column: paint it once per
          // kind (they are still counted as drawn).
          if (!on && x1 - x0 < 1 && Math.floor(x0) === lastPx && v[1] === lastKind) {
            bars++;
            if (kd.style === 'wait') waits++;
            if (kd.style === 'measure') measures++;
            continue;
          }
          lastPx = Math.floor(x0 + w - 1);
          lastKind = v[1];
          ctx.fillStyle = f.fill;
          ctx.fillRect(x0, yy, w, hh);
          if (on) {
            ctx.strokeStyle = '#0b2fa8';
            ctx.lineWidth = 2;
            ctx.strokeRect(x0 - 1, yy - 1, w + 2, hh + 2);
            ctx.lineWidth = 1;
          } else if (w > 6) {
            ctx.strokeStyle = f.edge;
            ctx.strokeRect(x0 + 0.5, yy + 0.5, w - 1, hh - 1);
          }
          bars++;
          if (kd.style === 'measure') measures++;
          if (kd.style === 'wait') {
            waits++;
          } else if (w > 28) {
            ctx.fillStyle = kd.style === 'measure' ? '#fff' : '#1d1d1d';
            label(S[v[2]].n, v[2], x0, w, yy + hh / 2 + 0.5);
          }
        }
      }
      var ia = L.inst, iy = L.y + L.nrows * ROW + 1;
      ctx.fillStyle = '#4a4a4a';
      for (var j = firstAt(ia, v0); j < ia.length; j++) {
        var e = IN[ia[j]];
        if (e[3] > v1) break;
        ctx.fillRect(Math.round(X(e[3])) - 0.5, iy, 1.5, ISTRIP - 3);
        events++;
      }
    });
    var messages = drawMessages(right);
    var marks = drawMarks(right);
    drawSelection(right);
    drawState(right);
    // Gutter with the lane names, over anything drawn left of the plot.
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, GUT - 1, totalH);
    ctx.fillRect(right + 1, 0, W - right, totalH);
    ctx.font = '11px system-ui, sans-serif';
    ctx.fillStyle = '#555';
    ticks.forEach(function (tk) {
      if (tk[0] < right - 30) ctx.fillText(fmtTick(tk[1], step), tk[0] + 3, AXIS / 2);
    });
    ctx.font = '600 12px system-ui, sans-serif';
    ctx.fillStyle = '#333';
    var named = 0; // lanes drawn with a name of their own (two runs on one page)
    lanes.forEach(function (L, p) {
      var name = meta.lanes ? meta.lanes[p] : 'P' + p;
      if (name !== 'P' + p) named++;
      ctx.fillText(name, 8, L.y + ROW / 2);
    });
    statusEl.dataset.namedLanes = named;
    ctx.strokeStyle = '#c8cbd0';
    ctx.beginPath();
    ctx.moveTo(GUT - 0.5, AXIS - 2);
    ctx.lineTo(GUT - 0.5, totalH);
    ctx.stroke();
    statusEl.dataset.highlighted = lit;
    statusEl.dataset.gc = gcs;
    report(bars, waits, measures, events, messages, marks);
    if (LOD) {
      statusEl.dataset.lodCells = lodCells;
      statusEl.dataset.detail = summary ? 0 : 1;
      if (summary) statusEl.textContent = lanes.length + ' lanes · ' + lodCells + ' summary bars drawn · ' + meta.records + ' records in the trace' +
        (LOD.serve ? ' · zoom in to draw them one by one' : '');
      want();
    }
  }

  // covered reports whether the records of the part shown are loaded.
  function covered() { return detail !== null && detail[0] <= v0 && v1 <= detail[1]; }

  // drawLOD draws lane L from its summaries: a bar per part of the run, in
  // the colour of the kind covering most of it, fainter the less it covers.
  function drawLOD(L, q, right) {
    var ln = LOD.lanes[q], n = 0;
    if (!ln) return 0;
    var bw = span / LOD.buckets, b0 = Math.max(0, Math.floor(v0 / bw)), b1 = Math.min(LOD.buckets - 1, Math.floor(v1 / bw));
    for (var d = 0; d < ln.rows.length; d++) {
      var row = ln.rows[d], yy = L.y + d * ROW + 1, hh = ROW - 2, lastPx = -1;
      for (var b = b0; b <= b1; b++) {
        var k = row[2 * b], c = row[2 * b + 1];
        if (k < 0 || c === 0) continue;
        var x0 = Math.max(X(b * bw), GUT), x1 = Math.min(X((b + 1) * bw), right);
        if (x1 - x0 < 1 && Math.floor(x0) === lastPx) continue; // one bar a pixel column
        lastPx = Math.floor(x0);
        ctx.globalAlpha = 0.3 + 0.7 * c / 100;
        ctx.fillStyle = fills[k].fill;
        ctx.fillRect(x0, yy, Math.max(x1 - x0, 1), hh);
        n++;
      }
    }
    ctx.globalAlpha = 1;
    return n;
  }

  // want asks the server for the records of the part shown (with a margin)
  // once it holds at most LOD.limit of them, after the view has settled.
  function want() {
    if (!LOD.serve || covered()) return;
    var m = (v1 - v0) / 4, a = Math.max(v0 - m, 0), b = Math.min(v1 + m, span);
    var bw = span / LOD.buckets, n = 0;
    for (var q = 0; q < LOD.lanes.length; q++) {
      var cnt = LOD.lanes[q].n;
      for (var k = Math.max(0, Math.floor(a / bw)); k <= Math.min(LOD.buckets - 1, Math.floor(b / bw)); k++) n += cnt[k];
    }
    if (n > LOD.limit) return;
    if (asked && asked[0] === a && asked[1] === b) return;
    clearTimeout(pending);
    pending = setTimeout(function () {
      asked = [a, b];
      statusEl.dataset.fetching = 1;
      fetch('window?t0=' + a + '&t1=' + b).then(function (r) { return r.json(); }).then(function (nd) {
        statusEl.dataset.fetching = 0;
        if (nd.error) { statusEl.dataset.lodError = 1; return; }
        setDetail(nd, a, b);
      });
    }, 120);
  }

  // setDetail takes the records of the part [a, b] of the run.
  function setDetail(nd, a, b) {
    nd.meta = meta;
    nd.lod = LOD;
    D = nd;
    IV = D.iv; IN = D['in']; S = D.sites; MS = D.msg || [];
    detail = [a, b];
    index();
    resize();
  }

  // drawGC shades the collector's stop-the-world pauses across every lane
  // (no processor runs Go code then) and marks them under the time axis.
  function drawGC(right) {
    var n = 0;
    for (var i = 0; i < GC.length; i++) {
      var g = GC[i];
      if (g[0] + g[1] < v0 || g[0] > v1) continue;
      var x0 = Math.max(X(g[0]), GUT), x1 = Math.min(X(g[0] + g[1]), right), w = Math.max(x1 - x0, 1);
      ctx.fillStyle = 'rgba(90, 90, 90, 0.16)';
      ctx.fillRect(x0, AXIS, w, totalH - AXIS);
      ctx.fillStyle = '#555';
      ctx.fillRect(x0, AXIS - 5, Math.max(w, 2), 4);
      n++;
    }
    return n;
  }

  // drawSelection shades the selected part of the run.
  function drawSelection(right) {
    if (!sel) return;
    var x0 = Math.max(X(sel.a), GUT), x1 = Math.min(X(sel.b), right);
    if (x1 < x0) return;
    ctx.fillStyle = 'rgba(60, 120, 220, 0.13)';
    ctx.fillRect(x0, AXIS - 4, Math.max(x1 - x0, 1), totalH - AXIS + 4);
    ctx.strokeStyle = 'rgba(40, 90, 200, 0.8)';
    ctx.beginPath();
    ctx.moveTo(Math.round(x0) + 0.5, AXIS - 4);
    ctx.lineTo(Math.round(x0) + 0.5, totalH);
    ctx.moveTo(Math.round(x1) - 0.5, AXIS - 4);
    ctx.lineTo(Math.round(x1) - 0.5, totalH);
    ctx.stroke();
  }

  // drawMarks draws each error a checker found (svmc view --check) as a red
  // triangle on the top edge of its processor's lane, at its call.
  function drawMarks(right) {
    var n = 0;
    ctx.fillStyle = '#d00000';
    for (var i = 0; i < MK.length; i++) {
      var m = MK[i], L = lanes[m[0]];
      if (!L || m[1] < v0 || m[1] > v1) continue;
      var x = X(m[1]);
      if (x < GUT || x > right) continue;
      ctx.beginPath();
      ctx.moveTo(x - 6, L.y - 4);
      ctx.lineTo(x + 6, L.y - 4);
      ctx.lineTo(x, L.y + 7);
      ctx.fill();
      n++;
    }
    return n;
  }

  // drawMessages draws each message whose time span meets the window as a
  // line from its send (top row of the sender's lane) to its receive's
  // completion (top row of the receiver's lane), with a head at the
  // receiving end; it returns how many it drew.
  function drawMessages(right) {
    var n = 0;
    ctx.strokeStyle = 'rgba(20, 90, 80, 0.75)';
    ctx.fillStyle = 'rgba(20, 90, 80, 0.9)';
    ctx.lineWidth = 1.2;
    for (var i = 0; i < MS.length; i++) {
      var m = MS[i];
      if (m[3] < v0 || m[2] > v1) continue;
      var a = lanes[m[0]], b = lanes[m[1]];
      if (!a || !b) continue;
      var x0 = X(m[2]), y0 = a.y + ROW / 2, x1 = X(m[3]), y1 = b.y + ROW / 2;
      if (Math.max(x0, x1) < GUT || Math.min(x0, x1) > right) continue;
      ctx.beginPath();
      ctx.moveTo(x0, y0);
      ctx.lineTo(x1, y1);
      ctx.stroke();
      var ang = Math.atan2(y1 - y0, x1 - x0);
      ctx.beginPath();
      ctx.moveTo(x1, y1);
      ctx.lineTo(x1 - 6 * Math.cos(ang - 0.4), y1 - 6 * Math.sin(ang - 0.4));
      ctx.lineTo(x1 - 6 * Math.cos(ang + 0.4), y1 - 6 * Math.sin(ang + 0.4));
      ctx.fill();
      n++;
    }
    ctx.lineWidth = 1;
    return n;
  }

  // report writes what was drawn into the page (the footer and its data-*
  // attributes), for the reader and for tests that load the page headless.
  function report(bars, waits, measures, events, messages, marks) {
    rangeEl.textContent = fmtDur(v0) + ' – ' + fmtDur(v1) + '  (' + fmtDur(v1 - v0) + ')';
    statusEl.textContent = lanes.length + ' lanes · ' + bars + ' bars drawn (' + waits + ' waiting, ' +
      measures + ' measured) · ' + events + ' events · ' + messages + ' messages · ' + IV.length + ' intervals, ' +
      IN.length + ' events and ' + MS.length + ' messages in the trace';
    statusEl.dataset.messages = messages;
    statusEl.dataset.marks = marks;
    if (MK.length) statusEl.textContent += ' · ' + MK.length + ' errors marked';
    statusEl.dataset.lanes = lanes.length;
    statusEl.dataset.bars = bars;
    statusEl.dataset.waits = waits;
    statusEl.dataset.measures = measures;
    statusEl.dataset.events = events;
    if (firstDraw) {
      firstDraw = false;
      statusEl.dataset.paintedLanes = paintedLanes();
      statusEl.dataset.measureLanes = colourLanes('measure');
      statusEl.dataset.headerOverlaps = headerOverlaps();
      statusEl.dataset.ready = '1';
    }
  }

  // headerOverlaps counts the header's buttons and readouts squeezed below
  // their text (a button narrower than its label, a range wrapped onto
  // several lines: the range once ran over the buttons), or overlapping
  // one another; the hint may shrink.
  function headerOverlaps() {
    const els = Array.from(document.querySelectorAll('#tools > *:not(.hint)'));
    const rs = els.map(e => e.getBoundingClientRect());
    let n = 0;
    els.forEach((e, i) => {
      const line = parseFloat(getComputedStyle(e).lineHeight) || 1.4 * parseFloat(getComputedStyle(e).fontSize);
      if (e.scrollWidth > e.clientWidth + 1 || (e.tagName === 'SPAN' && rs[i].height > 1.5 * line)) n++;
      for (let j = i + 1; j < els.length; j++) {
        const a = rs[i], b = rs[j];
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) n++;
      }
    });
    return n;
  }

  // colourLanes counts the lanes whose rows hold pixels of the colour of
  // the kinds drawn in the given style (exactly: the inside of a bar).
  function colourLanes(style) {
    var r = window.devicePixelRatio || 1, n = 0, cols = [];
    K.forEach(function (k) {
      if (k.style !== style) return;
      var c = parseInt(k.color.slice(1), 16);
      cols.push([c >> 16, (c >> 8) & 255, c & 255]);
    });
    if (!cols.length) return 0;
    lanes.forEach(function (L) {
      var x = Math.ceil(GUT * r), w = Math.floor(PW * r), y0 = Math.ceil(L.y * r), h = Math.floor(L.nrows * ROW * r);
      if (w <= 0 || h <= 0) return;
      var px = ctx.getImageData(x, y0, w, h).data;
      for (var q = 0; q < px.length; q += 4) {
        for (var c = 0; c < cols.length; c++) {
          if (Math.abs(px[q] - cols[c][0]) <= 1 && Math.abs(px[q + 1] - cols[c][1]) <= 1 && Math.abs(px[q + 2] - cols[c][2]) <= 1) {
            n++;
            return;
          }
        }
      }
    });
    return n;
  }

  // paintedLanes counts the lanes whose rows hold pixels of a bar: a colour
  // far from the lane background and from the grid lines.
  function paintedLanes() {
    var r = window.devicePixelRatio || 1, n = 0;
    lanes.forEach(function (L) {
      var x = Math.ceil(GUT * r), w = Math.floor(PW * r), y0 = Math.ceil(L.y * r), h = Math.floor(L.nrows * ROW * r);
      if (w <= 0 || h <= 0) return;
      var px = ctx.getImageData(x, y0, w, h).data;
      for (var q = 0; q < px.length; q += 4) {
        var lo = Math.min(px[q], px[q + 1], px[q + 2]);
        if (lo < 200) { n++; return; }
      }
    });
    return n;
  }

  function resize() {
    layout();
    W = box.clientWidth;
    PW = Math.max(W - GUT - PAD, 10);
    var r = window.devicePixelRatio || 1;
    canvas.style.width = W + 'px';
    canvas.style.height = totalH + 'px';
    canvas.width = Math.round(W * r);
    canvas.height = Math.round(totalH * r);
    ctx.setTransform(r, 0, 0, r, 0, 0);
    fills = K.map(function (k) {
      return {
        fill: k.style === 'wait' ? hatch(k.color) : k.color,
        edge: k.style === 'held' ? '#555' : shade(k.color, k.style === 'wait' ? 0.8 : 0.72)
      };
    });
    draw();
  }

  // setWindow shows [a, b] (µs from the start of the run), kept within
  // sensible bounds: at least a nanosecond wide, at most a little more than
  // the run.
  function setWindow(a, b) {
    var minW = 1e-3, maxW = span * 1.2;
    var w = Math.min(Math.max(b - a, minW), maxW), c = (a + b) / 2;
    a = c - w / 2;
    b = c + w / 2;
    var lo = -span * 0.1, hi = span * 1.1;
    if (a < lo) { b += lo - a; a = lo; }
    if (b > hi) { a -= b - hi; b = hi; }
    v0 = a;
    v1 = b;
    draw();
  }
  function zoom(f, at) {
    if (at === undefined) at = (v0 + v1) / 2;
    setWindow(at - (at - v0) * f, at + (v1 - at) * f);
  }

  // Hit testing: the interval under the pointer (within 3 pixels), else the
  // nearest event tick.
  function hit(mx, my) {
    var tol = 3 * (v1 - v0) / PW, t = T(mx);
    if (my >= AXIS - 7 && my < AXIS) {
      for (var g = 0; g < GC.length; g++) {
        if (t >= GC[g][0] - tol && t <= GC[g][0] + GC[g][1] + tol) return { gc: g };
      }
    }
    for (var q = 0; q < MK.length; q++) {
      var mk = MK[q], ML = lanes[mk[0]];
      if (ML && Math.abs(X(mk[1]) - mx) <= 7 && my >= ML.y - 6 && my <= ML.y + 8) return { mark: q };
    }
    for (var p = 0; p < lanes.length; p++) {
      var L = lanes[p];
      if (my < L.y || my >= L.y + L.h) continue;
      var r = Math.floor((my - L.y) / ROW), best = null, bd = Infinity, k;
      if (r < L.rows.length) {
        var arr = L.rows[r];
        for (k = firstEnding(arr, t - tol); k < arr.length; k++) {
          var v = IV[arr[k]];
          if (v[4] > t + tol) break;
          var dist = t < v[4] ? v[4] - t : t > v[5] ? t - v[5] : 0;
          if (dist < bd) { bd = dist; best = { iv: arr[k] }; }
        }
        return best;
      }
      if (r >= L.nrows) {
        var ia = L.inst;
        for (k = firstAt(ia, t - tol); k < ia.length; k++) {
          var e = IN[ia[k]];
          if (e[3] > t + tol) break;
          var de = Math.abs(e[3] - t);
          if (de < bd) { bd = de; best = { ev: ia[k] }; }
        }
      }
      return best;
    }
    return null;
  }

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }
  function abs(t) { return (t + meta.start).toFixed(3); }
  function source(si) {
    if (si < 0) return '';
    var s = S[si], parts = [s.f, s.l, s.w].filter(function (x) { return x; });
    var h = parts.length ? '<div class="src">' + parts.map(esc).join(' · ') + '</div>' : '';
    if (s.x) h += '<div class="src">' + esc(s.x) + '</div>';
    return h;
  }
  function recText(name, p, clock, s, kind) {
    var f = ['node ' + p, 'clock ' + clock];
    if (s >= 0 && S[s].k === 'measure') f.push('level ' + (S[s].lv || 0), 'name ' + JSON.stringify(S[s].l || ''));
    else if (s >= 0) f.push('sub ' + S[s].sub, 'dir ' + S[s].dir);
    if (kind <= 7) f.push('type ' + kind);
    return name + ' { ' + f.join(', ') + ' }';
  }
  function tipHTML(h) {
    if (h.gc !== undefined) {
      var g = GC[h.gc];
      return '<b>garbage collection ' + g[2] + '</b>: stop-the-world pause<br>' + abs(g[0]) + ' µs, <b>' + fmtDur(g[1]) + '</b>' +
        '<div class="src">no processor runs Go code during it (gc-pause, svmc run --gotrace)</div>';
    }
    if (h.mark !== undefined) {
      var mk = MK[h.mark];
      return '<b class="err">' + esc(mk[2]) + '</b> — P' + mk[0] + ' at ' + abs(mk[1]) + ' µs<br>' + esc(mk[4]) +
        '<div class="rec">' + esc(mk[3]) + '</div>';
    }
    if (h.iv !== undefined) {
      var v = IV[h.iv], k = K[v[1]], fx = fix[h.iv];
      var c0 = fx ? fx[0].toFixed(3) : abs(v[4]), c1 = fx ? fx[1].toFixed(3) : abs(v[5]);
      var s = '<b>' + esc(S[v[2]].n) + '</b> — ' + esc(k.name) + '<br>P' + v[0] + ', depth ' + v[3] +
        '<br>' + abs(v[4]) + ' → ' + abs(v[5]) + ' µs, <b>' + fmtDur(v[5] - v[4]) + '</b>' + source(v[2]);
      if (fx) s += '<div class="fix">clocks corrected for a consistent order (records say ' + c0 + ' → ' + c1 + ' µs)</div>';
      s += '<div class="rec">' + esc(recText(k.start, v[0], c0, v[2], v[1])) + '\n' +
        (v[6] ? '(no ' + esc(k.end) + ': closed with its enclosing region or at the end of the trace)' :
          esc(recText(k.end, v[0], c1, v[2], v[1]))) + '</div>';
      return s;
    }
    var e = IN[h.ev], clock = e.length > 5 ? e[5].toFixed(3) : abs(e[3]);
    var t = '<b>' + esc(D.names[e[1]]) + '</b><br>P' + e[0] + ' at ' + abs(e[3]) + ' µs' + source(e[2]);
    if (e.length > 5) t += '<div class="fix">clock corrected for a consistent order (record says ' + clock + ' µs)</div>';
    return t + '<div class="rec">' + esc(D.names[e[1]] + ' { clock ' + clock + ', ' + D.rec[e[4]] + ' }') + '</div>';
  }
  function showTip(mx, my) {
    var h = hit(mx, my);
    if (!h) { tip.hidden = true; return; }
    tip.innerHTML = tipHTML(h);
    tip.hidden = false;
    var tw = tip.offsetWidth, th = tip.offsetHeight;
    var left = mx + 14 + tw > W ? Math.max(mx - 14 - tw, 0) : mx + 14;
    var top = my + 16;
    if (top + th > box.scrollTop + box.clientHeight) top = Math.max(my - 10 - th, box.scrollTop);
    tip.style.left = left + 'px';
    tip.style.top = top + 'px';
  }

  // windowStats is view.SummarizeWindow of [a, b] (µs from the start):
  // every interval clipped to the window, a region or wait counted when it
  // meets it, a recursive activation once, busy time that of the outermost
  // regions less the waits inside them; messages sent or received in it.
  function windowStats(a, b) {
    var per = [], regions = {}, waits = {}, open = [], p, i;
    for (p = 0; p < lanes.length; p++) per.push({ busy: 0, wait: 0, sent: 0, recv: 0, sentBytes: 0, recvBytes: 0 });
    function add(m, site, kind, d) {
      var key = site + ':' + kind, st = m[key];
      if (!st) st = m[key] = { site: site, kind: kind, calls: 0, time: 0 };
      st.calls++;
      st.time += d;
    }
    for (i = 0; i < IV.length; i++) {
      var v = IV[i], style = K[v[1]].style;
      if (i === 0 || IV[i - 1][0] !== v[0]) open = [];
      open.length = Math.min(v[3], open.length);
      open.push(style === 'region' ? v[2] : -1);
      var d;
      if (v[4] === v[5]) {
        if (v[4] < a || v[4] > b) continue;
        d = 0;
      } else {
        if (v[5] <= a || v[4] >= b) continue;
        d = Math.min(v[5], b) - Math.max(v[4], a);
      }
      var ps = per[v[0]], inRegion = false, self = false;
      for (var q = 0; q < open.length - 1; q++) {
        if (open[q] >= 0) inRegion = true;
        if (open[q] === v[2]) self = true;
      }
      if (style === 'region') {
        if (!inRegion) ps.busy += d;
        if (!self) add(regions, v[2], v[1], d);
      } else if (style === 'wait') {
        ps.wait += d;
        if (inRegion) ps.busy -= d;
        add(waits, v[2], v[1], d);
      }
    }
    MS.forEach(function (m) {
      if (per[m[0]] && m[2] >= a && m[2] <= b) { per[m[0]].sent++; per[m[0]].sentBytes += m[5]; }
      if (per[m[1]] && m[3] >= a && m[3] <= b) { per[m[1]].recv++; per[m[1]].recvBytes += m[5]; }
    });
    per.forEach(function (ps) {
      ps.busy = Math.max(ps.busy, 0);
      ps.idle = Math.max(b - a - ps.busy - ps.wait, 0);
    });
    function top(m) {
      var out = Object.keys(m).map(function (k) { return m[k]; });
      out.sort(function (x, y) { return y.time - x.time || x.site - y.site || x.kind - y.kind; });
      return out.slice(0, 10);
    }
    var gcN = 0, gcT = 0;
    GC.forEach(function (g) {
      var s = g[0], e = g[0] + g[1];
      if (s === e ? s >= a && s <= b : e > a && s < b) { gcN++; gcT += Math.min(e, b) - Math.max(s, a); }
    });
    return { per: per, top: top(regions), waits: top(waits), gcN: gcN, gcT: gcT };
  }

  // showSelection fills the side panel's selection part with the
  // statistics of [a, b]; every number also sits in a data-* attribute.
  function showSelection(a, b) {
    if (LOD && !(detail !== null && detail[0] <= Math.min(a, b) && Math.max(a, b) <= detail[1])) {
      // A large trace's page has the records of the part it draws one by
      // one only: statistics of a part need them.
      var nb = document.getElementById('sel');
      nb.innerHTML = '<h2>Selection</h2><p class="note" id="sel-lod">zoom in until the records are drawn one by one, then select a part of what is shown</p>';
      nb.hidden = false;
      return;
    }
    sel = { a: Math.min(a, b), b: Math.max(a, b) };
    var st = windowStats(sel.a, sel.b), box = document.getElementById('sel'), h = [];
    var len = sel.b - sel.a, total = len * lanes.length;
    h.push('<h2>Selection<button id="sel-clear" title="clear the selection (Esc)">clear</button></h2>');
    h.push('<p class="note" id="sel-range" data-from="' + sel.a.toFixed(3) + '" data-to="' + sel.b.toFixed(3) + '">' +
      fmtDur(sel.a) + ' – ' + fmtDur(sel.b) + ' (' + fmtDur(len) + ')</p>');
    h.push('<table class="procs" id="sel-procs"><tr><th></th><th>busy</th><th>waiting</th><th>idle</th><th>messages out / in</th></tr>');
    st.per.forEach(function (ps, p) {
      h.push('<tr data-proc="' + p + '" data-busy="' + ps.busy.toFixed(3) + '" data-wait="' + ps.wait.toFixed(3) +
        '" data-idle="' + ps.idle.toFixed(3) + '" data-sent="' + ps.sent + '" data-recv="' + ps.recv +
        '" data-sent-bytes="' + ps.sentBytes + '" data-recv-bytes="' + ps.recvBytes + '"><th>' +
        esc(meta.lanes ? meta.lanes[p] : 'P' + p) + '</th><td>' + fmtDur(ps.busy) + '</td><td>' + fmtDur(ps.wait) +
        '</td><td>' + fmtDur(ps.idle) + '</td><td>' + ps.sent + ' / ' + ps.recv + '</td></tr>');
    });
    h.push('</table>');
    function rows(id, title, list) {
      h.push('<h3>' + title + '</h3>');
      if (!list.length) { h.push('<p class="note">none in the selection</p>'); return; }
      h.push('<table class="top" id="' + id + '"><tr><th>site</th><th>calls</th><th>time</th><th>share</th></tr>');
      list.forEach(function (r) {
        var s = S[r.site];
        h.push('<tr data-site="' + r.site + '" data-kind="' + r.kind + '" data-calls="' + r.calls + '" data-us="' +
          r.time.toFixed(3) + '"><td>' + esc(s.n) + '<div class="where">' + esc(K[r.kind].name) + (s.w ? ' · ' + esc(s.w) : '') +
          '</div></td><td>' + r.calls + '</td><td>' + fmtDur(r.time) + '</td><td>' +
          (total > 0 ? (100 * r.time / total).toFixed(1) + '%' : '–') + '</td></tr>');
      });
      h.push('</table>');
    }
    if (GC.length) {
      h.push('<p class="note" id="sel-gc" data-gc-count="' + st.gcN + '" data-gc-us="' + st.gcT.toFixed(3) + '">collector: ' +
        st.gcN + ' stop-the-world pauses, ' + fmtDur(st.gcT) + ' in the selection</p>');
    }
    rows('sel-top', 'Regions', st.top);
    rows('sel-waits', 'Waiting', st.waits);
    box.innerHTML = h.join('');
    box.hidden = false;
    document.getElementById('sel-clear').onclick = clearSelection;
    statusEl.dataset.selection = 1;
    draw();
  }
  function clearSelection() {
    sel = null;
    document.getElementById('sel').hidden = true;
    statusEl.dataset.selection = 0;
    draw();
  }

  // The source view: one file at a time; a line that sites lie on shows
  // what happened there and, clicked, outlines its bars on the timeline.
  var srcSel = document.getElementById('src-file'), srcLines = document.getElementById('src-lines');
  var srcInfo = document.getElementById('src-info'), srcBody = document.getElementById('src-body');
  var srcFile = -1, maxLineTime = 0;
  SRC.forEach(function (f, i) {
    var o = document.createElement('option');
    o.value = i;
    o.textContent = f.f + (f.t === null ? ' (not embedded)' : '');
    srcSel.appendChild(o);
    f.l.forEach(function (l) { maxLineTime = Math.max(maxLineTime, l[1]); });
  });
  function heat(t) {
    if (!(t > 0) || !(maxLineTime > 0)) return '';
    var a = 0.08 + 0.5 * t / maxLineTime;
    return ' style="background:rgba(245,160,60,' + a.toFixed(3) + ')"';
  }
  function showFile(fi) {
    if (fi < 0 || fi >= SRC.length) return;
    srcFile = fi;
    srcSel.value = fi;
    var f = SRC[fi], h = [], byLine = {}, n = 0;
    f.l.forEach(function (l) { byLine[l[0]] = l; });
    h.push('<tr><th>line</th><th>time</th><th>calls</th><th title="(max − mean) / max over the processors">imbalance</th>' +
      '<th>waiting</th><th>messages</th><th>faults</th><th>' + (f.t === null ? 'sites (source not embedded: svmc view --src DIR)' : 'source') + '</th></tr>');
    function row(num, text, l) {
      if (!l) {
        h.push('<tr><td class="ln">' + num + '</td><td></td><td></td><td></td><td></td><td></td><td></td><td class="code">' + esc(text) + '</td></tr>');
        return;
      }
      n++;
      var notes = l[10].map(function (nt) { return '<span class="badge ' + esc(nt[0]) + '">' + esc(nt[1]) + '</span>'; }).join('');
      h.push('<tr class="hot" id="L' + num + '" data-line="' + num + '" data-us="' + l[1].toFixed(3) + '" data-wait="' + l[4].toFixed(3) +
        '" data-msgs="' + l[6] + '" data-faults="' + l[8] + '" data-notes="' + l[10].length + '"><td class="ln">' + num + '</td>' +
        '<td class="num"' + heat(l[1]) + '>' + (l[2] ? fmtDur(l[1]) : '') + '</td><td class="num">' + (l[2] || '') + '</td>' +
        '<td class="num">' + (l[3] > 0 ? (100 * l[3]).toFixed(1) + '%' : '') + '</td>' +
        '<td class="num">' + (l[5] ? fmtDur(l[4]) : '') + '</td>' +
        '<td class="num">' + (l[6] ? l[6] + ' (' + l[7] + ' B)' : '') + '</td><td class="num">' + (l[8] || '') + '</td>' +
        '<td class="code">' + esc(text) + notes + '</td></tr>');
    }
    if (f.t !== null) {
      var text = f.t.split('\n');
      if (text.length && text[text.length - 1] === '') text.pop();
      text.forEach(function (t, i) { row(i + 1, t, byLine[i + 1]); });
      // Lines past the end of the text (the file changed since the run)
      // are still listed.
      f.l.forEach(function (l) { if (l[0] > text.length) row(l[0], '', l); });
    } else {
      f.l.forEach(function (l) {
        var names = [];
        l[9].forEach(function (si) {
          var nm = S[si].x || S[si].n;
          if (names.indexOf(nm) < 0) names.push(nm);
        });
        row(l[0], names.join(' · '), l);
      });
    }
    srcLines.innerHTML = h.join('');
    srcInfo.textContent = n + ' annotated lines';
    statusEl.dataset.sourceFile = fi;
    statusEl.dataset.sourceRows = n;
  }
  srcSel.onchange = function () { showFile(+srcSel.value); };
  srcLines.addEventListener('click', function (e) {
    var tr = e.target.closest('tr.hot');
    if (tr) pickLine(SRC[srcFile].f, +tr.dataset.line, false);
  });
  // With a report (svmc report --format html) the panel has two tabs.
  var tabReport = document.getElementById('tab-report'), tabSource = document.getElementById('tab-source');
  function showTab(report) {
    if (!tabReport) return;
    tabReport.classList.toggle('on', report);
    tabSource.classList.toggle('on', !report);
    document.getElementById('report-body').hidden = !report;
    srcBody.hidden = report;
    srcSel.hidden = report;
    srcInfo.hidden = report;
    statusEl.dataset.tab = report ? 1 : 0;
  }
  if (tabReport) {
    tabReport.onclick = function () { showTab(true); };
    tabSource.onclick = function () { showTab(false); };
    showTab(true);
  }
  document.getElementById('src-toggle').onclick = function () {
    var src = document.getElementById('source');
    src.classList.toggle('folded');
    this.textContent = src.classList.contains('folded') ? 'show' : 'hide';
    resize();
  };

  // pickLine outlines the bars of the sites at file:line and marks the
  // line in the source view (scrolling it into sight when asked).
  function pickLine(file, line, scroll) {
    var fi = -1, l = null;
    SRC.forEach(function (f, i) { if (f.f === file) fi = i; });
    if (fi >= 0) SRC[fi].l.forEach(function (x) { if (x[0] === line) l = x; });
    hl = {};
    if (l) l[9].forEach(function (si) { hl[si] = true; });
    hlWhere = file + ':' + line;
    statusEl.dataset.sourceLine = hlWhere;
    showTab(false);
    if (fi >= 0 && fi !== srcFile) showFile(fi);
    var old = srcLines.querySelector('tr.sel');
    if (old) old.classList.remove('sel');
    var tr = document.getElementById('L' + line);
    if (tr) {
      tr.classList.add('sel');
      if (scroll) srcBody.scrollTop = Math.max(tr.offsetTop - srcBody.clientHeight / 3, 0);
    }
    draw();
  }
  // pickInterval: a click on a bar picks its site's line.
  function pickInterval(i) {
    var s = S[IV[i][2]];
    if (!s.w) return;
    var c = s.w.lastIndexOf(':');
    pickLine(s.w.slice(0, c), +s.w.slice(c + 1), true);
  }
  function barAt(x, y) {
    var h = hit(x, y);
    return h && h.iv !== undefined ? h.iv : -1;
  }

  // Global states (seed 001, VISTOP): step through the causally consistent
  // order the timeline was built in. D.order gives, run by run, which
  // processor's next event comes next and, per processor, whether it opens
  // its next interval (o), closes its innermost open one (c) or is its next
  // instant (i). After step k every processor's open intervals are its
  // state: the innermost names what it runs, waits for or holds.
  var ORD = D.order || { runs: [], ev: [] }, steps = null, cur = -1, stacks = [], used = [], playing = null;
  var stateBox = document.getElementById('state');
  function decodeOrder() {
    var byProc = lanes.map(function () { return []; }), oi = [], ii = [], pos = [], stk = [];
    IV.forEach(function (v, i) { byProc[v[0]].push(i); });
    lanes.forEach(function () { oi.push(0); ii.push(0); pos.push(0); stk.push([]); });
    steps = [];
    for (var r = 0; r < ORD.runs.length; r += 2) {
      var p = ORD.runs[r], n = ORD.runs[r + 1], ev = ORD.ev[p];
      for (var k = 0; k < n; k++) {
        var c = ev.charAt(pos[p]++), i;
        if (c === 'o') {
          i = byProc[p][oi[p]++];
          stk[p].push(i);
          steps.push(2 * i);
        } else if (c === 'c') {
          steps.push(2 * stk[p].pop() + 1);
        } else {
          steps.push(-(lanes[p].inst[ii[p]++] + 1));
        }
      }
    }
  }
  function stepProc(code) { return code >= 0 ? IV[code >> 1][0] : IN[-code - 1][0]; }
  function stepTime(code) { return code >= 0 ? IV[code >> 1][(code & 1) ? 5 : 4] : IN[-code - 1][3]; }
  // repaired: the order put the event later than its clock said.
  function repaired(code) {
    if (code < 0) return IN[-code - 1].length > 5;
    var f = D.fixMask[code >> 1];
    return f !== undefined && (f & ((code & 1) ? 2 : 1)) !== 0;
  }
  function resetState() {
    cur = -1;
    stacks = lanes.map(function () { return []; });
    used = lanes.map(function () { return 0; });
  }
  function apply(code) {
    var p = stepProc(code);
    used[p]++;
    if (code < 0) return;
    if (code & 1) {
      var s = stacks[p], i = code >> 1, at = s.lastIndexOf(i);
      if (at >= 0) s.splice(at, 1);
    } else {
      stacks[p].push(code >> 1);
    }
  }
  function gotoStep(k) {
    if (!steps) decodeOrder();
    k = Math.max(-1, Math.min(k, steps.length - 1));
    if (k < cur) resetState();
    while (cur < k) apply(steps[++cur]);
    showState();
    draw();
  }
  function procName(p) { return meta.lanes ? meta.lanes[p] : 'P' + p; }
  function siteText(si) {
    var s = S[si];
    return esc(s.n) + (s.w && s.n.indexOf(s.w) < 0 ? ' <span class="where">' + esc(s.w) + '</span>' : '');
  }
  // procState is what processor p does after the current step: its state
  // (region, wait, held, msg, measure, idle or done), the site and whom it
  // waits for: at a barrier the processors not waiting there, at a lock or
  // critical section those holding it, in a message call its peer.
  function procState(p) {
    var s = stacks[p];
    if (!s.length) return { state: used[p] >= ORD.ev[p].length ? 'done' : 'idle', site: -1, whom: [] };
    var i = s[s.length - 1], v = IV[i], st = K[v[1]].style, whom = [], q;
    if (st === 'wait') {
      var held = K[v[1]].name === 'lock wait' || K[v[1]].name === 'critical wait';
      var team = !held && Array.isArray(v[7]) ? v[7] : null; // a barrier of a section's team
      for (q = 0; q < lanes.length; q++) {
        if (q === p || (team && team.indexOf(q) < 0)) continue;
        var hit = stacks[q].some(function (j) {
          return IV[j][2] === v[2] && (held ? K[IV[j][1]].style === 'held' : K[IV[j][1]].style === 'wait');
        });
        if (held ? hit : !hit) whom.push(q);
      }
    } else if (st === 'msg' && v.length > 7) {
      whom.push(v[7]);
    }
    return { state: st, site: v[2], whom: whom, iv: i };
  }
  function showState() {
    var h = [], code = cur >= 0 ? steps[cur] : null;
    document.getElementById('st-slider').max = steps.length - 1;
    document.getElementById('st-slider').value = cur;
    if (code === null) {
      h.push('<p id="st-event">before the first event (' + steps.length + ' steps)</p>');
    } else {
      var p = stepProc(code), what;
      if (code < 0) what = esc(D.names[IN[-code - 1][1]]) + (IN[-code - 1][2] >= 0 ? ' at ' + siteText(IN[-code - 1][2]) : '');
      else what = ((code & 1) ? 'leaves ' : 'enters ') + esc(K[IV[code >> 1][1]].name) + ' ' + siteText(IV[code >> 1][2]);
      h.push('<p id="st-event" data-repaired="' + (repaired(code) ? 1 : 0) + '">step ' + (cur + 1) + ' of ' + steps.length +
        ' at ' + fmtDur(stepTime(code)) + ': <b>' + esc(procName(p)) + '</b> ' + what +
        (repaired(code) ? '<br><span class="err">clock repaired: the record\'s clock was earlier than a causal predecessor</span>' : '') + '</p>');
    }
    h.push('<table id="st-procs">');
    for (var q = 0; q < lanes.length; q++) {
      var ps = procState(q), text;
      switch (ps.state) {
        case 'done': text = 'finished'; break;
        case 'idle': text = 'outside every region'; break;
        case 'wait':
          text = 'waits at ' + siteText(ps.site) + (ps.whom.length ? (K[IV[ps.iv][1]].style === 'wait' && /lock|critical/.test(K[IV[ps.iv][1]].name) ?
            ' held by ' : ' for ') + ps.whom.map(procName).join(', ') : '');
          break;
        case 'held': text = 'holds ' + siteText(ps.site); break;
        case 'msg': text = 'in ' + siteText(ps.site) + (ps.whom.length ? ' with ' + procName(ps.whom[0]) : ''); break;
        default: text = 'runs ' + siteText(ps.site);
      }
      h.push('<tr data-proc="' + q + '" data-state="' + ps.state + '" data-site="' + ps.site + '" data-whom="' + ps.whom.join(',') +
        '" class="st-' + ps.state + '"><th>' + esc(procName(q)) + '</th><td>' + text + '</td></tr>');
    }
    h.push('</table>');
    var t = code === null ? -Infinity : stepTime(code), fl = inFlight(t);
    h.push('<p class="note" id="st-msgs">' + fl.length + ' messages in flight' + (fl.length ? ': ' + fl.slice(0, 8).map(function (m) {
      return procName(MS[m][0]) + '→' + procName(MS[m][1]) + ' (' + MS[m][5] + ' B)';
    }).join(', ') + (fl.length > 8 ? ', …' : '') : '') + '</p>');
    document.getElementById('st-body').innerHTML = h.join('');
    statusEl.dataset.step = cur + 1;
    statusEl.dataset.steps = steps.length;
    statusEl.dataset.inflight = fl.length;
  }
  function inFlight(t) {
    var out = [];
    for (var m = 0; m < MS.length; m++) if (MS[m][2] <= t && MS[m][3] > t) out.push(m);
    return out;
  }
  // drawState draws the current step: a line at its time (red where the
  // order repaired the clock), a ring on its processor's lane and the
  // messages in flight in orange.
  function drawState(right) {
    if (stateBox.hidden || !steps || cur < 0) return;
    var code = steps[cur], t = stepTime(code), x = X(t), L = lanes[stepProc(code)];
    if (x < GUT || x > right) return;
    ctx.strokeStyle = repaired(code) ? '#d00000' : '#0a7d32';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(x, AXIS - 4);
    ctx.lineTo(x, totalH);
    ctx.stroke();
    ctx.beginPath();
    ctx.arc(x, L.y + ROW / 2, 6, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.strokeStyle = 'rgba(230, 120, 0, 0.95)';
    ctx.lineWidth = 3;
    inFlight(t).forEach(function (m) {
      var a = lanes[MS[m][0]], b = lanes[MS[m][1]];
      ctx.beginPath();
      ctx.moveTo(X(MS[m][2]), a.y + ROW / 2);
      ctx.lineTo(X(MS[m][3]), b.y + ROW / 2);
      ctx.stroke();
    });
    ctx.lineWidth = 1;
  }
  function play() {
    if (playing) {
      clearInterval(playing);
      playing = null;
      document.getElementById('st-play').textContent = '▶';
      return;
    }
    document.getElementById('st-play').textContent = '❚❚';
    playing = setInterval(function () {
      if (cur >= steps.length - 1) { play(); return; }
      gotoStep(cur + 1);
      var t = stepTime(steps[cur]);
      if (t > v1 || t < v0) setWindow(t - (v1 - v0) / 2, t + (v1 - v0) / 2);
    }, 80);
  }
  function openStates() {
    stateBox.hidden = false;
    if (!steps) { decodeOrder(); resetState(); }
    var n = 0;
    steps.forEach(function (c) { if (repaired(c)) n++; });
    statusEl.dataset.repairs = n;
    gotoStep(cur);
  }
  document.getElementById('states').onclick = function () {
    if (stateBox.hidden) openStates(); else { stateBox.hidden = true; if (playing) play(); draw(); }
  };
  document.getElementById('st-first').onclick = function () { gotoStep(-1); };
  document.getElementById('st-prev').onclick = function () { gotoStep(cur - 1); };
  document.getElementById('st-next').onclick = function () { gotoStep(cur + 1); };
  document.getElementById('st-last').onclick = function () { gotoStep(steps.length - 1); };
  document.getElementById('st-play').onclick = play;
  document.getElementById('st-slider').oninput = function () { gotoStep(+this.value); };
  document.getElementById('st-repair').onclick = function () {
    for (var k = cur + 1; k < steps.length; k++) {
      if (repaired(steps[k])) {
        gotoStep(k);
        var t = stepTime(steps[k]);
        setWindow(t - (v1 - v0) / 2, t + (v1 - v0) / 2);
        return;
      }
    }
  };

  // Dragging pans; shift+dragging selects a part of the run; a click
  // without moving picks the bar under the pointer.
  var drag = null;
  canvas.addEventListener('mousedown', function (e) {
    drag = { x: e.clientX, ox: e.offsetX, oy: e.offsetY, v0: v0, v1: v1, select: e.shiftKey, moved: false };
    if (!drag.select) canvas.classList.add('drag');
    tip.hidden = true;
    e.preventDefault();
  });
  window.addEventListener('mouseup', function (e) {
    if (drag && drag.select && drag.moved) {
      showSelection(sel.a, sel.b);
    } else if (drag && !drag.moved) {
      var i = barAt(drag.ox, drag.oy);
      if (i >= 0) pickInterval(i);
    }
    drag = null;
    canvas.classList.remove('drag');
  });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    if (Math.abs(e.clientX - drag.x) > 2) drag.moved = true;
    if (!drag.moved) return;
    if (drag.select) {
      var x1 = drag.ox + (e.clientX - drag.x);
      sel = { a: Math.min(T(drag.ox), T(x1)), b: Math.max(T(drag.ox), T(x1)) };
      draw();
      return;
    }
    var dt = (e.clientX - drag.x) / PW * (drag.v1 - drag.v0);
    setWindow(drag.v0 - dt, drag.v1 - dt);
  });
  canvas.addEventListener('mousemove', function (e) {
    if (!drag) showTip(e.offsetX, e.offsetY);
  });
  canvas.addEventListener('mouseleave', function () { tip.hidden = true; });
  canvas.addEventListener('wheel', function (e) {
    if (e.shiftKey) return; // shift+wheel scrolls the lanes
    e.preventDefault();
    var dy = e.deltaMode === 1 ? e.deltaY * 30 : e.deltaY;
    zoom(Math.exp(dy * 0.0015), e.offsetX >= GUT ? T(e.offsetX) : undefined);
  }, { passive: false });
  canvas.addEventListener('dblclick', function (e) {
    var h = hit(e.offsetX, e.offsetY);
    if (h && h.iv !== undefined) {
      var v = IV[h.iv], m = Math.max((v[5] - v[4]) * 0.05, 1e-3);
      setWindow(v[4] - m, v[5] + m);
    } else if (h) {
      zoom(0.1, IN[h.ev][3]);
    } else {
      zoom(0.5, T(e.offsetX));
    }
  });
  document.getElementById('zoom-in').onclick = function () { zoom(0.5); };
  document.getElementById('zoom-out').onclick = function () { zoom(2); };
  document.getElementById('zoom-fit').onclick = function () { setWindow(0, span); };
  window.addEventListener('keydown', function (e) {
    var w = v1 - v0;
    switch (e.key) {
      case '+': case '=': zoom(0.5); break;
      case '-': zoom(2); break;
      case '0': setWindow(0, span); break;
      case 'ArrowLeft': setWindow(v0 - w * 0.2, v1 - w * 0.2); break;
      case 'ArrowRight': setWindow(v0 + w * 0.2, v1 + w * 0.2); break;
      case 'Escape': clearSelection(); break;
      case '.': if (!stateBox.hidden) gotoStep(cur + 1); break;
      case ',': if (!stateBox.hidden) gotoStep(cur - 1); break;
      default: return;
    }
    e.preventDefault();
  });
  window.addEventListener('resize', resize);

  // #window=A,B in the address opens the page on [A, B] (µs from the start
  // of the run), so a view can be shared or captured.
  var m = /window=([-0-9.e+]+),([-0-9.e+]+)/.exec(location.hash);
  if (m && +m[2] > +m[1]) {
    v0 = +m[1];
    v1 = +m[2];
  }
  if (SRC.length) {
    // The file with the most time first (main's, usually).
    var best = 0, bt = -1;
    SRC.forEach(function (f, i) {
      var t = 0;
      f.l.forEach(function (l) { t += l[1]; });
      if (t > bt) { bt = t; best = i; }
    });
    showFile(best);
  } else {
    document.getElementById('source').classList.add('folded');
    srcInfo.textContent = 'no source positions (the trace has no program information)';
  }
  resize();

  // #line=FILE:N picks a source line, #pick=I interval I as a click would,
  // #select=A,B selects [A, B] (µs from the start) as shift+drag would.
  var ln = /line=([^&]+):([0-9]+)/.exec(location.hash);
  if (ln) pickLine(decodeURIComponent(ln[1]), +ln[2], true);
  var pk = /pick=([0-9]+)/.exec(location.hash);
  if (pk && +pk[1] < IV.length) pickInterval(+pk[1]);
  var sl = /select=([-0-9.e+]+),([-0-9.e+]+)/.exec(location.hash);
  if (sl) showSelection(+sl[1], +sl[2]);
  // #step=K opens the global states after step K (0: before the first).
  var sk = /step=([0-9]+)/.exec(location.hash);
  if (sk) { openStates(); gotoStep(+sk[1] - 1); }

  // #tip=I shows the tooltip of interval I, #tip=eI that of event I, as
  // hovering over it would.
  var ti = /tip=(e?)([0-9]+)/.exec(location.hash);
  if (ti && !ti[1] && +ti[2] < IV.length) {
    var tv = IV[+ti[2]], tl = lanes[tv[0]];
    var tx = (Math.max(X(tv[4]), GUT) + Math.min(X(tv[5]), GUT + PW)) / 2;
    showTip(tx, tl.y + tv[3] * ROW + ROW / 2);
  } else if (ti && +ti[2] < IN.length) {
    var te = IN[+ti[2]], el = lanes[te[0]];
    showTip(X(te[3]), el.y + el.nrows * ROW + ISTRIP / 2);
  }
})();

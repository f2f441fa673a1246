// bao-viewer replay page. Reads the ReplayData JSON embedded in #bao-replay-data (or builds it
// from the game log embedded in #bao-replay-log: a log page) and replays it.
// It never implements Bao rules: it shows each ply's recorded position, and animates the
// recorded sowing steps in between. All text from the data goes in through textContent.
(function () {
  "use strict";

  var ROWS = ["A", "B", "a", "b"]; // the order of board.rows
  var BASE_STEP_MS = 260; // one sowing step at 1x
  var BASE_PAUSE_MS = 700; // the pause between plies when playing at 1x
  var MAX_DOTS = 30;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function byId(id) {
    return document.getElementById(id);
  }

  function sideName(s) {
    return s === "N" ? "North" : "South";
  }

  function micros(us) {
    if (typeof us !== "number") return "";
    if (us < 1000) return us + " \u00b5s";
    if (us < 1000000) return (us / 1000).toFixed(1) + " ms";
    return (us / 1000000).toFixed(2) + " s";
  }

  function clock(ms) {
    if (typeof ms !== "number") return "";
    if (ms < 60000) return (ms / 1000).toFixed(2) + " s";
    var m = Math.floor(ms / 60000);
    var s = ((ms % 60000) / 1000).toFixed(2);
    return m + ":" + (s.length < 5 ? "0" + s : s);
  }

  function infoText(info) {
    if (!info || typeof info !== "object") return "";
    var parts = [];
    if (info.depth !== undefined && info.depth !== null) parts.push("depth " + info.depth);
    if (info.score !== undefined && info.score !== null) parts.push("score " + info.score);
    if (info.nodes !== undefined && info.nodes !== null) parts.push("nodes " + info.nodes);
    if (Array.isArray(info.pv) && info.pv.length) parts.push("pv " + info.pv.join(" "));
    if (typeof info.comment === "string" && info.comment) parts.push("\u201c" + info.comment + "\u201d");
    return parts.join(", ");
  }

  function shortInfo(ply) {
    var infos = Array.isArray(ply.info) ? ply.info : [];
    if (!infos.length) return "";
    var last = infos[infos.length - 1];
    var parts = [];
    if (last.depth !== undefined && last.depth !== null) parts.push("d" + last.depth);
    if (last.score !== undefined && last.score !== null) parts.push((last.score > 0 ? "+" : "") + last.score);
    return parts.join(" ");
  }

  function showError(message) {
    var e = byId("load-error");
    e.textContent = message;
    e.hidden = false;
  }

  // ---- data -------------------------------------------------------------------------------

  // A log page (a tournament's games/NNNNN.html) embeds the game log itself, as written, in
  // #bao-replay-log and its title and link back in #bao-replay-page; the replay data is read off
  // the log's records here. A log holds each ply's position but not its sowing steps, so such a
  // page shows every position without animating the sowing.
  function boardFromNotation(text) {
    var f = typeof text === "string" ? text.split(" ") : [];
    if (f.length !== 6 || (f[1] !== "S" && f[1] !== "N")) return null;
    var rows = f[2].split("/").map(function (r) {
      return r.split(",").map(Number);
    });
    var hands = f[3].split(",").map(Number);
    var bad = function (n) {
      return !(n >= 0 && n <= 255 && Math.floor(n) === n);
    };
    if (rows.length !== 4 || rows.some(function (r) {
      return r.length !== 8 || r.some(bad);
    }) || hands.length !== 2 || hands.some(bad)) return null;
    var mover = f[1];
    // Takasia is written in the mover's own notation; North's pits are named lower case.
    var takasia = f[5] === "-" ? null : mover === "N" ? f[5].charAt(0).toLowerCase() + f[5].slice(1) : f[5];
    return {
      to_move: mover,
      stage: hands[mover === "S" ? 0 : 1] > 0 ? "namua" : "mtaji",
      rows: rows,
      hands: hands,
      nyumba: [f[4].charAt(0) === "S", f[4].charAt(1) === "N"],
      takasia: takasia,
      notation: text
    };
  }

  function seedsOnBoard(board, side) {
    var first = side === "S" ? 0 : 2;
    return board.rows[first].concat(board.rows[first + 1]).reduce(function (a, b) {
      return a + b;
    }, 0);
  }

  function dataFromLog(text, page) {
    var lines = String(text).split("\n");
    lines.pop(); // after the last newline: empty, or the line being written
    var records = lines
      .filter(function (l) {
        return l.trim() !== "";
      })
      .map(function (l) {
        return JSON.parse(l);
      });
    var header = records[0];
    if (!header || header.type !== "header" || !header.south || !header.north) return null;
    var name = function (bot) {
      return bot.reported && bot.reported.name ? String(bot.reported.name) : String(bot.name);
    };
    var out = {
      variant: header.variant,
      south_name: name(header.south),
      north_name: name(header.north),
      start: boardFromNotation(header.start),
      plies: [],
      result: null,
      title: page && typeof page.title === "string" ? page.title : null,
      back_href: page && typeof page.back_href === "string" ? page.back_href : null
    };
    var before = out.start;
    records.slice(1).forEach(function (r) {
      if (!r || typeof r !== "object") return;
      if (r.type === "ready") {
        if (r.side === "S") out.south_name = String(r.name);
        if (r.side === "N") out.north_name = String(r.name);
      } else if (r.type === "ply") {
        var after = boardFromNotation(r.position);
        var mover = r.side === "N" ? "N" : "S";
        var mv = String(r.move);
        var captured = before && after ? seedsOnBoard(before, mover === "S" ? "N" : "S") - seedsOnBoard(after, mover === "S" ? "N" : "S") : 0;
        out.plies.push({
          number: r.ply,
          side: mover,
          mv: mv,
          record: mover === "N" ? mv.charAt(0).toLowerCase() + mv.slice(1) : mv,
          stage: before && before.hands[mover === "S" ? 0 : 1] > 0 ? "namua" : "mtaji",
          time_us: r.time_us,
          clock_ms: r.clock_ms || null,
          info: (Array.isArray(r.info) ? r.info : []).map(function (i) {
            return { depth: i.depth, score: i.score, nodes: i.nodes, pv: [], comment: i.comment };
          }),
          captured: Math.max(0, captured),
          after: after,
          steps: []
        });
        before = after;
      } else if (r.type === "result") {
        out.result = { winner: r.winner === "S" || r.winner === "N" ? r.winner : null, reason: String(r.reason), detail: r.detail ? String(r.detail) : "" };
      }
    });
    return out;
  }

  var data;
  var logElement = document.getElementById("bao-replay-log");
  try {
    if (logElement) {
      var pageElement = document.getElementById("bao-replay-page");
      data = dataFromLog(logElement.textContent, pageElement ? JSON.parse(pageElement.textContent) : {});
    } else {
      data = JSON.parse(byId("bao-replay-data").textContent);
    }
  } catch (err) {
    data = null;
  }
  if (!data || typeof data !== "object" || !data.start || !Array.isArray(data.plies)) {
    showError("This page holds no readable game data.");
    return;
  }

  function validBoard(b) {
    return !!b && typeof b === "object" && Array.isArray(b.rows) && b.rows.length === 4;
  }

  function validPly(p) {
    return !!p && typeof p === "object" && validBoard(p.after);
  }

  var badPly = data.plies.findIndex(function (p) {
    return !validPly(p);
  });
  if (!validBoard(data.start) || badPly >= 0) {
    showError(
      badPly >= 0 ? "Ply " + (badPly + 1) + " in this page's data has no position." : "This page's data has no start position."
    );
    return;
  }

  if (logElement) {
    // A log page has no sowing steps to animate.
    var animateBox = byId("animate");
    animateBox.checked = false;
    animateBox.disabled = true;
    animateBox.parentNode.title = "This page is read from the game log, which holds no sowing steps";
  }

  function boardAt(n) {
    return n === 0 ? data.start : data.plies[n - 1].after;
  }

  function countsOf(board) {
    var counts = {};
    for (var r = 0; r < 4; r++) {
      var row = (board.rows && board.rows[r]) || [];
      for (var c = 0; c < 8; c++) counts[ROWS[r] + (c + 1)] = Number(row[c]) || 0;
    }
    return counts;
  }

  // ---- building the page ------------------------------------------------------------------

  var pits = {}; // name -> {root, count, dots}
  var boardEl = byId("board");

  function buildBoard() {
    // North on top: b8..b1, a8..a1; then South: A1..A8, B1..B8 (a spectator at South's seat).
    var layout = [
      { row: "b", cols: [8, 7, 6, 5, 4, 3, 2, 1], side: "N" },
      { row: "a", cols: [8, 7, 6, 5, 4, 3, 2, 1], side: "N" },
      { row: "A", cols: [1, 2, 3, 4, 5, 6, 7, 8], side: "S" },
      { row: "B", cols: [1, 2, 3, 4, 5, 6, 7, 8], side: "S" }
    ];
    layout.forEach(function (line, i) {
      if (i === 2) boardEl.appendChild(el("div", "divider"));
      var rowEl = el("div", "row row-" + (line.side === "N" ? "north" : "south"));
      rowEl.appendChild(el("span", "row-label", line.row));
      line.cols.forEach(function (col) {
        var name = line.row + col;
        var pit = el("div", "pit");
        pit.setAttribute("data-pit", name);
        pit.setAttribute("data-seeds", "0");
        var label = el("span", "pit-name", name);
        var dots = el("span", "dots");
        var count = el("span", "count", "0");
        pit.appendChild(label);
        pit.appendChild(dots);
        pit.appendChild(count);
        rowEl.appendChild(pit);
        pits[name] = { root: pit, count: count, dots: dots, shown: -1 };
      });
      boardEl.appendChild(rowEl);
    });
  }

  function setPit(name, n) {
    var p = pits[name];
    if (!p) return;
    if (n < 0) n = 0;
    p.root.setAttribute("data-seeds", String(n));
    p.count.textContent = String(n);
    p.root.title = name + ": " + n + (n === 1 ? " seed" : " seeds");
    if (p.shown === n) return;
    p.shown = n;
    while (p.dots.firstChild) p.dots.removeChild(p.dots.firstChild);
    var k = Math.min(n, MAX_DOTS);
    p.dots.className = "dots" + (n > 16 ? " dots-many" : n > 8 ? " dots-some" : "");
    for (var i = 0; i < k; i++) p.dots.appendChild(el("i"));
  }

  function setHands(hands) {
    ["S", "N"].forEach(function (s, i) {
      var h = document.querySelector('[data-hand="' + s + '"]');
      h.textContent = String(Number(hands && hands[i]) || 0);
    });
  }

  function markBoard(board, highlight) {
    Object.keys(pits).forEach(function (name) {
      var root = pits[name].root;
      var nyumba =
        (name === "A5" && board.nyumba && board.nyumba[0]) || (name === "a5" && board.nyumba && board.nyumba[1]);
      root.classList.toggle("nyumba", !!nyumba);
      root.classList.toggle("takasia", board.takasia === name);
      root.classList.toggle("last-move", highlight === name);
      root.classList.remove("active", "captured");
    });
    ["S", "N"].forEach(function (s) {
      byId("player-" + s).classList.toggle("to-move", board.to_move === s);
    });
  }

  // ---- showing a ply ----------------------------------------------------------------------

  // chase: a live page follows new plies one animation after another (see addPly).
  var state = { ply: 0, playing: false, timer: null, anim: null, chase: false };
  var moveButtons = [];

  function movePit(ply) {
    // The pit written in the move, absolute: the record form's first two characters.
    return ply && typeof ply.record === "string" ? ply.record.slice(0, 2) : null;
  }

  function showPly(n) {
    var board = boardAt(n);
    var ply = n > 0 ? data.plies[n - 1] : null;
    var counts = countsOf(board);
    Object.keys(counts).forEach(function (name) {
      setPit(name, counts[name]);
    });
    setHands(board.hands);
    markBoard(board, movePit(ply));
    byId("sowing").hidden = true;
    boardEl.removeAttribute("data-animating");
    state.ply = n;
    byId("ply-number").setAttribute("data-ply", String(n));
    headline(n, board, ply);
    updateButtons();
  }

  // The texts about ply n (its number, move, times, infos; the move list's current entry).
  // During an animation they already describe the ply being sown; data-ply changes only when
  // its recorded position is shown.
  function headline(n, board, ply) {
    byId("ply-number").textContent = String(n);
    describePly(n, board, ply);
    moveButtons.forEach(function (b, i) {
      b.classList.toggle("current", i === n);
      if (i === n) b.setAttribute("aria-current", "true");
      else b.removeAttribute("aria-current");
    });
    scrollMoveIntoView(n);
  }

  function describePly(n, board, ply) {
    var move = byId("ply-move");
    var detail = byId("ply-detail");
    var infoList = byId("ply-info");
    while (infoList.firstChild) infoList.removeChild(infoList.firstChild);
    if (!ply) {
      move.textContent = "start position";
      detail.textContent = sideName(board.to_move) + " to move, " + (board.stage || "");
    } else {
      var name = ply.side === "N" ? data.north_name : data.south_name;
      move.textContent = "";
      move.appendChild(el("b", "mv", ply.mv));
      if (ply.record !== ply.mv) move.appendChild(el("span", "record", " (record " + ply.record + ")"));
      move.appendChild(el("span", "", " by " + sideName(ply.side) + " "));
      move.appendChild(el("span", "who who-" + ply.side, name));
      var parts = [ply.stage || "", "captured " + (Number(ply.captured) || 0), "time " + micros(ply.time_us)];
      if (Array.isArray(ply.clock_ms) && ply.clock_ms.length === 2) {
        parts.push("clocks S " + clock(ply.clock_ms[0]) + " \u00b7 N " + clock(ply.clock_ms[1]));
      }
      detail.textContent = parts.join(" \u00b7 ");
      var infos = Array.isArray(ply.info) ? ply.info : [];
      var MAX_INFOS = 6; // the last ones: the deepest search
      if (infos.length > MAX_INFOS) {
        infoList.appendChild(el("li", "more", infos.length - MAX_INFOS + " earlier info messages not shown"));
      }
      infos.slice(-MAX_INFOS).forEach(function (info) {
        var t = infoText(info);
        if (t) infoList.appendChild(el("li", "", "info: " + t));
      });
    }
    byId("notation").textContent = typeof board.notation === "string" ? board.notation : "";
    var result = byId("result");
    result.classList.toggle("at-end", n === data.plies.length);
  }

  function scrollMoveIntoView(n) {
    var b = moveButtons[n];
    if (!b) return;
    var list = byId("moves");
    var top = b.offsetTop - list.offsetTop;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + b.offsetHeight > list.scrollTop + list.clientHeight)
      list.scrollTop = top + b.offsetHeight - list.clientHeight;
  }

  function updateButtons() {
    var last = data.plies.length;
    byId("btn-first").disabled = state.ply === 0 && !state.anim;
    byId("btn-prev").disabled = state.ply === 0 && !state.anim;
    byId("btn-next").disabled = state.ply === last && !state.anim;
    byId("btn-last").disabled = state.ply === last && !state.anim;
    var play = byId("btn-play");
    play.querySelector(".play-label").textContent = state.playing ? "pause" : "play";
    play.setAttribute("aria-label", state.playing ? "pause" : "play");
    play.classList.toggle("playing", state.playing);
  }

  // ---- animation --------------------------------------------------------------------------

  function speed() {
    var v = Number(byId("speed").value);
    return v > 0 ? v : 1;
  }

  function stopAnimation() {
    state.chase = false;
    if (state.anim) {
      clearTimeout(state.anim.timer);
      var target = state.anim.target;
      state.anim = null;
      return target;
    }
    return null;
  }

  // Shows ply n, animating its steps from ply n-1 when asked and possible; calls done after.
  function advanceTo(n, animate, done) {
    var ply = data.plies[n - 1];
    var steps = ply && Array.isArray(ply.steps) ? ply.steps : [];
    if (!animate || !byId("animate").checked || steps.length === 0) {
      showPly(n);
      if (done) done();
      return;
    }
    var before = boardAt(n - 1);
    var counts = countsOf(before);
    var hands = [Number(before.hands && before.hands[0]) || 0, Number(before.hands && before.hands[1]) || 0];
    var mover = ply.side === "N" ? 1 : 0;
    var floating = 0;
    var sowing = byId("sowing");
    markBoard(before, movePit(ply));
    boardEl.setAttribute("data-animating", "true");
    headline(n, ply.after, ply);
    var anim = { target: n, timer: null, index: 0 };
    state.anim = anim;
    updateButtons();

    var centre = null; // where the floating seeds are: the centre of the last pit, px

    // Puts the floating label over `centre`, kept inside the board: at the edge pits of a
    // narrow screen it would otherwise stick out and make the page scroll sideways. Called
    // after every change of its text (its width).
    function placeFloating() {
      if (centre === null || sowing.hidden) return;
      var width = sowing.offsetWidth;
      var wrap = sowing.offsetParent;
      var left = centre - width / 2;
      if (wrap) left = Math.max(0, Math.min(wrap.clientWidth - width, left));
      sowing.style.transform = "translate(0, -110%)";
      sowing.style.left = left + "px";
    }

    function showFloating(pitName) {
      sowing.hidden = floating <= 0;
      sowing.textContent = floating + " in hand";
      var p = pits[pitName];
      if (p) {
        centre = p.root.offsetLeft + p.root.offsetWidth / 2;
        sowing.style.top = p.root.offsetTop + "px";
      }
      placeFloating();
    }

    function tick() {
      if (state.anim !== anim) return;
      // Skip ops we do not know, without a pause.
      while (anim.index < steps.length) {
        var step = steps[anim.index++];
        // "op" is the contract; "type" is how the rules crate tags its sowing steps.
        var op = step && (step.op || step.type);
        var pit = step && typeof step.pit === "string" ? step.pit : null;
        Object.keys(pits).forEach(function (k) {
          pits[k].root.classList.remove("active");
        });
        if (op === "hand") {
          hands[mover] = Math.max(0, hands[mover] - 1);
          floating += 1;
          setHands(hands);
        } else if (op === "pick" && pit && pit in counts) {
          var lifted = Number(step.seeds);
          if (!(lifted >= 0)) lifted = counts[pit];
          counts[pit] = Math.max(0, counts[pit] - lifted);
          floating += lifted;
          setPit(pit, counts[pit]);
          pits[pit].root.classList.add("active");
        } else if (op === "drop" && pit && pit in counts) {
          counts[pit] += 1;
          floating = Math.max(0, floating - 1);
          setPit(pit, counts[pit]);
          pits[pit].root.classList.add("active");
        } else if (op === "capture" && pit && pit in counts) {
          var taken = Number(step.seeds);
          if (!(taken >= 0)) taken = counts[pit];
          counts[pit] = Math.max(0, counts[pit] - taken);
          floating += taken;
          setPit(pit, counts[pit]);
          pits[pit].root.classList.add("captured");
        } else if (op === "nyumba_lost" && pit && pits[pit]) {
          pits[pit].root.classList.remove("nyumba");
          continue;
        } else if (op === "safari" && pit && pits[pit]) {
          pits[pit].root.classList.add("active");
          sowing.hidden = false;
          sowing.textContent = "safari";
          placeFloating();
          anim.timer = setTimeout(tick, BASE_STEP_MS / speed());
          return;
        } else {
          continue; // kichwa and unknown markers: nothing to show
        }
        showFloating(pit);
        anim.timer = setTimeout(tick, BASE_STEP_MS / speed());
        return;
      }
      state.anim = null;
      showPly(n);
      if (done) done();
      // A live page that was following goes on to the plies that came during this one.
      if (state.chase && !state.playing && state.ply === n && n < data.plies.length) {
        advanceTo(n + 1, true, null);
      } else {
        state.chase = false;
      }
    }
    anim.timer = setTimeout(tick, BASE_STEP_MS / speed() / 2);
  }

  // ---- navigation -------------------------------------------------------------------------

  function clampPly(n) {
    return Math.max(0, Math.min(data.plies.length, n));
  }

  function goTo(n) {
    stopAnimation();
    showPly(clampPly(n));
  }

  function stepForward() {
    var target = stopAnimation();
    if (target !== null) {
      showPly(target); // a second press finishes the ply being sown
      return;
    }
    if (state.ply < data.plies.length) advanceTo(state.ply + 1, true, null);
  }

  function stepBack() {
    var target = stopAnimation();
    var from = target !== null ? target : state.ply;
    showPly(clampPly(from - 1));
  }

  function pause() {
    state.playing = false;
    clearTimeout(state.timer);
    state.timer = null;
    updateButtons();
  }

  function playNext() {
    if (!state.playing) return;
    if (state.ply >= data.plies.length) {
      pause();
      return;
    }
    advanceTo(state.ply + 1, true, function () {
      if (!state.playing) return;
      state.timer = setTimeout(playNext, BASE_PAUSE_MS / speed());
    });
  }

  function togglePlay() {
    if (state.playing) {
      pause();
      var target = stopAnimation();
      if (target !== null) showPly(target);
      return;
    }
    stopAnimation();
    if (state.ply >= data.plies.length) showPly(0);
    state.playing = true;
    updateButtons();
    playNext();
  }

  // ---- wiring -----------------------------------------------------------------------------

  function addMoveButton(label, ply, n) {
    var li = el("li");
    var b = el("button", "move " + (ply ? "move-" + ply.side : "move-start"));
    b.type = "button";
    b.setAttribute("data-goto", String(n));
    if (ply) {
      b.appendChild(el("span", "n", String(ply.number)));
      b.appendChild(el("span", "side side-" + ply.side, ply.side));
      b.appendChild(el("span", "mv", ply.record));
      b.appendChild(el("span", "t", micros(ply.time_us)));
      b.appendChild(el("span", "i", shortInfo(ply)));
      if (Number(ply.captured) > 0) b.appendChild(el("span", "cap", "\u00d7" + ply.captured));
    } else {
      b.appendChild(el("span", "n", "0"));
      b.appendChild(el("span", "mv", label));
    }
    b.addEventListener("click", function () {
      pause();
      goTo(n);
    });
    li.appendChild(b);
    byId("moves").appendChild(li);
    moveButtons.push(b);
  }

  function buildMoveList() {
    addMoveButton("start", null, 0);
    data.plies.forEach(function (ply, i) {
      addMoveButton(null, ply, i + 1);
    });
  }

  function showCounts() {
    byId("subtitle").textContent =
      (data.variant || "") + " \u00b7 South: " + data.south_name + " \u00b7 North: " + data.north_name +
      " \u00b7 " + data.plies.length + (data.plies.length === 1 ? " ply" : " plies");
    byId("ply-count").textContent = String(data.plies.length);
  }

  function fillHeader() {
    var title = data.title || data.south_name + " vs " + data.north_name;
    byId("title").textContent = title;
    document.title = title + " \u2014 Bao replay";
    showCounts();
    byId("name-S").textContent = data.south_name;
    byId("name-N").textContent = data.north_name;
    // Only a relative link: nothing with a scheme (javascript:, data:, http:).
    if (typeof data.back_href === "string" && data.back_href && !/^[a-z][a-z0-9+.-]*:/i.test(data.back_href)) {
      var back = byId("back-link");
      back.setAttribute("href", data.back_href);
      back.hidden = false;
    }
    showResult();
  }

  function showResult() {
    var result = byId("result");
    var r = data.result;
    result.classList.remove("winner-S", "winner-N");
    if (r && typeof r === "object" && typeof r.text === "string" && r.text) {
      // The result in words, where the page's maker gives them (the competition server).
      result.textContent = "";
      if (r.winner === "S" || r.winner === "N") result.classList.add("winner-" + r.winner);
      result.appendChild(el("b", "", r.text));
    } else if (r && typeof r === "object") {
      result.textContent = "";
      var head;
      if (r.winner === "S" || r.winner === "N") {
        head = sideName(r.winner) + " (" + (r.winner === "N" ? data.north_name : data.south_name) + ") wins";
        result.classList.add("winner-" + r.winner);
      } else {
        head = r.reason === "max_plies" ? "Draw" : "No winner";
      }
      result.appendChild(el("b", "", head));
      result.appendChild(el("span", "reason", " \u2014 " + (r.reason || "")));
      if (r.detail) result.appendChild(el("span", "detail", ": " + r.detail));
    } else {
      result.textContent = "Game in progress";
    }
    result.hidden = false;
  }

  function onKey(e) {
    var t = e.target;
    if (t && (t.tagName === "SELECT" || t.tagName === "INPUT" || t.tagName === "TEXTAREA")) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    switch (e.key) {
      case "ArrowRight":
        pause();
        stepForward();
        break;
      case "ArrowLeft":
        pause();
        stepBack();
        break;
      case "Home":
        pause();
        goTo(0);
        break;
      case "End":
        pause();
        goTo(data.plies.length);
        break;
      case " ":
      case "Spacebar":
        togglePlay();
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  buildBoard();
  fillHeader();
  buildMoveList();
  byId("btn-first").addEventListener("click", function () {
    pause();
    goTo(0);
  });
  byId("btn-prev").addEventListener("click", function () {
    pause();
    stepBack();
  });
  byId("btn-next").addEventListener("click", function () {
    pause();
    stepForward();
  });
  byId("btn-last").addEventListener("click", function () {
    pause();
    goTo(data.plies.length);
  });
  byId("btn-play").addEventListener("click", togglePlay);
  document.addEventListener("keydown", onKey);
  // A focused button would also "click" on the key-up of Space: the keydown already acted.
  document.addEventListener("keyup", function (e) {
    var t = e.target;
    if ((e.key === " " || e.key === "Spacebar") && !(t && (t.tagName === "SELECT" || t.tagName === "INPUT"))) {
      e.preventDefault();
    }
  });
  showPly(0);

  // For a page served live (the same template, data inline, more plies pushed by a script the
  // server adds): append a ply or set the result. A viewer at the last ply follows the game.
  window.baoReplay = {
    // The page's small DOM helpers, for scripts that add to it (bao-play's panel).
    el: el,
    byId: byId,
    plyCount: function () {
      return data.plies.length;
    },
    goTo: function (n) {
      pause();
      goTo(Number(n) || 0);
    },
    addPly: function (ply) {
      if (!validPly(ply)) return false;
      var last = data.plies.length;
      // At the last ply, or animating towards it (or following already): follow the new one,
      // after the animation under way.
      var following =
        !state.playing && (state.anim ? state.chase || state.anim.target === last : state.ply === last);
      data.plies.push(ply);
      addMoveButton(null, ply, data.plies.length);
      showCounts();
      if (following && state.anim) state.chase = true;
      else if (following) advanceTo(data.plies.length, true, null);
      else updateButtons();
      return true;
    },
    setResult: function (result) {
      data.result = result;
      showResult();
    }
  };
})();

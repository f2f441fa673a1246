// The live page of a game: bao-viewer's replay page, followed by this script. It
// asks for the plies after the last one the page holds, adds each to the viewer
// (which animates it when the watcher is at the last ply), runs both clocks, and
// shows the result. A stream that breaks is resumed by the browser with the last
// ply's number (Last-Event-ID); a gap makes it ask again from the last ply it has.
// `#connect-delay=MS` in the address delays the first connection (tests use it).
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("bao-live").textContent);
  var replay = window.baoReplay;
  var status = document.getElementById("live-status");
  var data = JSON.parse(document.getElementById("bao-replay-data").textContent);
  var lastBoard = data.plies.length ? data.plies[data.plies.length - 1].after : data.start;
  var toMove = lastBoard && lastBoard.to_move === "N" ? "N" : "S";
  var clocks = cfg.clock_ms.slice();
  var since = performance.now();
  var running = cfg.running;
  var have = cfg.from;
  var es = null;
  var clockEls = {};
  ["S", "N"].forEach(function (s) {
    var span = document.createElement("span");
    span.className = "live-clock";
    span.id = "clock-" + s;
    var player = document.getElementById("player-" + s);
    if (player) player.appendChild(span);
    clockEls[s] = span;
  });

  function fmt(ms) {
    var s = Math.max(0, ms) / 1000;
    if (s < 60) return s.toFixed(1) + " s";
    var m = Math.floor(s / 60);
    var r = (s - 60 * m).toFixed(1);
    return m + ":" + (r.length < 4 ? "0" : "") + r;
  }

  function draw() {
    var elapsed = running ? performance.now() - since : 0;
    ["S", "N"].forEach(function (s, i) {
      clockEls[s].textContent = fmt(clocks[i] - (s === toMove ? elapsed : 0));
      clockEls[s].classList.toggle("ticking", running && s === toMove);
    });
  }

  function mark() {
    document.body.setAttribute("data-live-plies", String(have));
  }

  function onMove(e) {
    var ev = JSON.parse(e.data);
    if (ev.ply <= have) return;
    if (ev.ply !== have + 1) {
      connect();
      return;
    }
    var ply = ev.data || {};
    // A watcher at the last ply follows the game: the viewer animates the new ply, and
    // a ply that arrives while the previous one is still being sown is shown at once.
    var shown = Number(document.getElementById("ply-number").textContent);
    var sowing = document.getElementById("board").getAttribute("data-animating") === "true";
    if (replay && ply.after) replay.addPly(ply);
    if (replay && sowing && shown === have) replay.goTo(ev.ply);
    have = ev.ply;
    if (Array.isArray(ply.clock_ms) && ply.clock_ms.length === 2) clocks = ply.clock_ms.slice();
    if (ply.after && (ply.after.to_move === "S" || ply.after.to_move === "N")) toMove = ply.after.to_move;
    since = performance.now();
    mark();
    draw();
  }

  function onEnd(e) {
    var ev = JSON.parse(e.data);
    running = false;
    if (replay && ev.data) replay.setResult(ev.data);
    status.textContent = "over: " + ev.text;
    document.body.setAttribute("data-live-over", "1");
    if (es) es.close();
    draw();
  }

  function connect() {
    if (es) es.close();
    es = new EventSource("/live/" + cfg.game + "/events?from=" + have);
    es.addEventListener("move", onMove);
    es.addEventListener("end", onEnd);
  }

  // The board shows the last ply the page has (the viewer starts at the start position).
  if (replay) replay.goTo(have);
  mark();
  draw();
  setInterval(draw, 100);
  if (!running) document.body.setAttribute("data-live-over", "1");
  else {
    var delay = /connect-delay=(\d+)/.exec(location.hash);
    setTimeout(connect, delay ? Number(delay[1]) : 0);
  }
})();

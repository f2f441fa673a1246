// bao-play: the play panel on the viewer's replay page. It never decides a move's legality:
// it shows the referee's legal list (the `your_turn` event) as elements carrying `data-move`,
// marks the pits those moves start from, and sends back the move clicked. The board, the
// sowing animation and the move list are the viewer's (window.baoReplay). All text goes in
// through textContent.
(function () {
  "use strict";

  var replay = window.baoReplay;
  var configElement = document.getElementById("bao-play-config");
  if (!replay || !configElement) return;
  var config = JSON.parse(configElement.textContent);
  var you = config.you === "N" ? "N" : "S";
  var them = you === "S" ? "N" : "S";
  // A watcher has no seat: no moves, no resignation; the clocks run for the side to move.
  var watching = !!config.watching;

  // The viewer's own DOM helpers.
  var el = replay.el;
  var byId = replay.byId;

  // ---- the panel ---------------------------------------------------------------------------

  var panel = el("section", "play-panel");
  panel.id = "play-panel";
  panel.setAttribute("aria-label", "your move");
  var status = el("p", "play-status", "Connecting\u2026");
  status.id = "play-status";
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  var legalList = el("div", "legal-moves");
  legalList.id = "legal-moves";
  legalList.setAttribute("role", "group");
  legalList.setAttribute("aria-label", "legal moves");
  var message = el("p", "play-message");
  message.id = "play-message";
  message.hidden = true;
  var resign = el("button", "resign", "Resign");
  resign.type = "button";
  resign.id = "resign";
  panel.appendChild(status);
  panel.appendChild(legalList);
  panel.appendChild(message);
  panel.appendChild(resign);
  if (watching) resign.hidden = true;
  // A game between friends: the address to send (the first to open it takes the other seat).
  if (config.share_link && !watching) {
    var share = el("p", "share", "Send this link to a friend: ");
    var link = el("a", "share-link", config.share_link);
    link.href = config.share_link;
    link.setAttribute("data-share-link", config.share_link);
    share.appendChild(link);
    panel.appendChild(share);
  }
  var newGame = null;
  if (config.new_game_href) {
    newGame = el("a", "new-game", config.two_people ? "New game" : "Rematch");
    newGame.id = "new-game";
    newGame.href = config.new_game_href;
    newGame.hidden = true;
    panel.appendChild(newGame);
  }
  var south = byId("player-S");
  south.parentNode.insertBefore(panel, south.nextSibling);

  if (!watching) {
    byId("player-" + you).classList.add("you");
    var youTag = el("span", "you-tag", "you");
    byId("player-" + you).insertBefore(youTag, byId("player-" + you).children[1]);
  }
  var clocks = {};
  ["S", "N"].forEach(function (side) {
    var c = el("span", "clock");
    c.id = "clock-" + side;
    c.setAttribute("data-clock", side);
    byId("player-" + side).appendChild(c);
    clocks[side] = { el: c, ms: null };
  });

  // ---- state -------------------------------------------------------------------------------

  var state = {
    v: 0, // the last event version applied
    live: false, // caught up: plies animate
    finished: false,
    turn: null, // {ply, legal, sent}
    running: null, // the side whose clock runs
    runningSince: 0,
    socket: null,
    retry: 250,
    resignArmed: false
  };

  function setState(s) {
    document.body.setAttribute("data-state", s);
    panel.setAttribute("data-state", s);
  }
  setState("connecting");

  function absolutePit(move) {
    // A move is written from the mover's own side; North's pits are lower case on the board.
    var pit = move.slice(0, 2);
    return you === "N" ? pit.charAt(0).toLowerCase() + pit.slice(1) : pit;
  }

  function clearMarks() {
    var marked = document.querySelectorAll(".pit.can-start, .pit.chosen");
    for (var i = 0; i < marked.length; i++) marked[i].classList.remove("can-start", "chosen");
  }

  function clearLegal() {
    while (legalList.firstChild) legalList.removeChild(legalList.firstChild);
    clearMarks();
  }

  function showLegal() {
    clearLegal();
    var turn = state.turn;
    if (!turn || turn.sent || state.finished) return;
    turn.legal.forEach(function (move) {
      var b = el("button", "legal-move", move);
      b.type = "button";
      b.setAttribute("data-move", move);
      b.title = "play " + move;
      b.addEventListener("click", function () {
        play(move);
      });
      legalList.appendChild(b);
      var pit = document.querySelector('.pit[data-pit="' + absolutePit(move) + '"]');
      if (pit) pit.classList.add("can-start");
    });
  }

  function say(text) {
    status.textContent = text;
  }

  function warn(text) {
    message.textContent = text;
    message.hidden = !text;
  }

  // ---- clocks ------------------------------------------------------------------------------

  function clockText(ms) {
    if (ms === null) return "";
    ms = Math.max(0, ms);
    var s = Math.floor(ms / 1000);
    var m = Math.floor(s / 60);
    s = s % 60;
    return m + ":" + (s < 10 ? "0" : "") + s + (ms < 10000 ? "." + Math.floor((ms % 1000) / 100) : "");
  }

  function drawClocks() {
    ["S", "N"].forEach(function (side) {
      var c = clocks[side];
      if (!config.timed && (side === you || config.two_people)) {
        c.el.textContent = "no clock";
        return;
      }
      var ms = c.ms;
      if (ms !== null && state.running === side) ms -= performance.now() - state.runningSince;
      c.el.textContent = clockText(ms);
      c.el.classList.toggle("running", state.running === side);
    });
  }

  function run(side) {
    state.running = side;
    state.runningSince = performance.now();
    drawClocks();
  }
  setInterval(drawClocks, 200);

  // ---- events ------------------------------------------------------------------------------

  function apply(event) {
    if (event.type === "ply") {
      var ply = event.ply;
      replay.addPly(ply);
      if (!state.live) replay.goTo(replay.plyCount());
      if (Array.isArray(ply.clock_ms)) {
        clocks.S.ms = ply.clock_ms[0];
        clocks.N.ms = ply.clock_ms[1];
      }
      state.turn = null;
      clearLegal();
      warn("");
      if (watching) {
        run(ply.side === "S" ? "N" : "S");
        say("You are watching this game.");
      } else if (ply.side === you) {
        run(them);
        say("Your opponent is thinking\u2026");
      } else {
        run(null);
      }
    } else if (event.type === "your_turn") {
      state.turn = { ply: event.ply, legal: event.legal, sent: false };
      clocks[you].ms = event.clock_ms[0];
      clocks[them].ms = event.clock_ms[1];
      run(you);
      say("Your move: click a marked pit or a move below.");
      showLegal();
    } else if (event.type === "result") {
      state.finished = true;
      state.turn = null;
      clearLegal();
      run(null);
      replay.setResult(event.result);
      say("Game over. " + event.words);
      resign.hidden = true;
      if (newGame) newGame.hidden = false;
      setState("finished");
    }
  }

  function play(move) {
    var turn = state.turn;
    if (!turn || turn.sent || !state.socket) return;
    turn.sent = true;
    clearLegal();
    say("Sent " + move + "\u2026");
    send({ type: "move", ply: turn.ply, move: move });
  }

  function send(frame) {
    if (state.socket && state.socket.readyState === 1) state.socket.send(JSON.stringify(frame));
  }

  function onFrame(text) {
    var frame;
    try {
      frame = JSON.parse(text);
    } catch (err) {
      return;
    }
    if (frame.frame === "event") {
      if (frame.v <= state.v) return; // already applied
      if (frame.v !== state.v + 1) {
        send({ type: "hello", since: state.v }); // a gap: ask for what was missed
        return;
      }
      state.v = frame.v;
      apply(frame.event);
    } else if (frame.frame === "caught_up") {
      state.live = true;
      state.retry = 250;
      if (!state.finished) {
        setState("playing");
        if (watching) say("You are watching this game.");
        else if (!state.turn && state.v === 0 && config.share_link) say("Waiting for your friend to open the link\u2026");
        else if (!state.turn) say(state.v === 0 ? "Waiting for the game to start\u2026" : "Your opponent is thinking\u2026");
      }
    } else if (frame.frame === "resync") {
      window.location.reload();
    } else if (frame.frame === "refused") {
      warn("Refused: " + frame.why);
      if (state.turn && state.turn.sent) {
        state.turn.sent = false;
        showLegal();
      }
    }
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + config.socket_path);
    state.socket = socket;
    state.live = false;
    socket.onopen = function () {
      socket.send(JSON.stringify({ type: "hello", since: state.v }));
    };
    socket.onmessage = function (e) {
      if (typeof e.data === "string") onFrame(e.data);
    };
    socket.onclose = function () {
      if (state.socket !== socket) return;
      state.socket = null;
      if (state.finished) return;
      setState("connecting");
      say("Connection lost; reconnecting\u2026");
      setTimeout(connect, state.retry);
      state.retry = Math.min(5000, state.retry * 2);
    };
  }

  // A click on a marked pit plays its move when it is the only one from there; otherwise the
  // moves from that pit are picked out in the list.
  byId("board").addEventListener("click", function (e) {
    var pit = e.target.closest ? e.target.closest(".pit") : null;
    if (!pit || !state.turn || state.turn.sent) return;
    var name = pit.getAttribute("data-pit");
    var from = state.turn.legal.filter(function (m) {
      return absolutePit(m) === name;
    });
    if (from.length === 1) {
      play(from[0]);
    } else if (from.length > 1) {
      clearMarks();
      showLegal();
      pit.classList.add("chosen");
      var buttons = legalList.querySelectorAll("[data-move]");
      for (var i = 0; i < buttons.length; i++) {
        var pick = absolutePit(buttons[i].getAttribute("data-move")) === name;
        buttons[i].classList.toggle("picked", pick);
        buttons[i].classList.toggle("dim", !pick);
      }
      say("From " + name + ": choose the direction below.");
    }
  });

  resign.addEventListener("click", function () {
    if (state.finished) return;
    if (!state.resignArmed) {
      state.resignArmed = true;
      resign.textContent = "Really resign? Click again";
      setTimeout(function () {
        state.resignArmed = false;
        resign.textContent = "Resign";
      }, 4000);
      return;
    }
    send({ type: "resign" });
  });

  drawClocks();
  connect();
})();

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
  // Sound: off by default; a short beep for a move, a lower one for a capture, a chord at the end.
  var soundLabel = el("label", "sound-toggle");
  var soundBox = el("input");
  soundBox.type = "checkbox";
  soundBox.id = "sound";
  soundBox.setAttribute("data-sound", "off");
  soundLabel.appendChild(soundBox);
  soundLabel.appendChild(document.createTextNode(" Sound"));
  panel.appendChild(soundLabel);
  // The keys (a person's turn): documented on the page.
  var keysHelp = el(
    "p",
    "play-keys",
    "Keys on your turn: \u2190 \u2192 move over the pits you may start from, Enter or Space chooses one; " +
      "when it has several moves, \u2190 \u2192 or 1\u20139 pick one, Enter plays it, Esc goes back. " +
      "Otherwise \u2190 \u2192 step through the game."
  );
  keysHelp.id = "play-keys";
  if (!watching) panel.appendChild(keysHelp);
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
    resignArmed: false,
    // Keyboard play: which pit (index into the marked pits) or which move from the chosen pit
    // has the focus.
    keys: { mode: "pit", pit: -1, moves: [], move: -1 }
  };

  // ---- sound -------------------------------------------------------------------------------

  var audio = null;
  function soundOn() {
    return soundBox.checked;
  }
  soundBox.addEventListener("change", function () {
    soundBox.setAttribute("data-sound", soundBox.checked ? "on" : "off");
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (soundBox.checked && !audio && Ctx) audio = new Ctx(); // made on the click: browsers allow it
    if (audio && audio.state === "suspended") audio.resume();
  });
  function beep(freqs, ms) {
    if (!soundOn() || !audio) return;
    var t = audio.currentTime;
    freqs.forEach(function (f, i) {
      var osc = audio.createOscillator();
      var gain = audio.createGain();
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.0001, t + i * 0.09);
      gain.gain.exponentialRampToValueAtTime(0.15, t + i * 0.09 + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + i * 0.09 + ms / 1000);
      osc.connect(gain);
      gain.connect(audio.destination);
      osc.start(t + i * 0.09);
      osc.stop(t + i * 0.09 + ms / 1000 + 0.02);
    });
  }

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
    var marked = document.querySelectorAll(".pit.can-start, .pit.chosen, .pit.key-focus");
    for (var i = 0; i < marked.length; i++) marked[i].classList.remove("can-start", "chosen", "key-focus");
  }

  function clearLegal() {
    while (legalList.firstChild) legalList.removeChild(legalList.firstChild);
    clearMarks();
  }

  function showLegal() {
    clearLegal();
    state.keys = { mode: "pit", pit: -1, moves: [], move: -1 };
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
      if (state.live) beep(ply.captured > 0 ? [330, 247] : [660], 90);
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
      say("Your move: click a marked pit or a move below (or use the keys: \u2190 \u2192, Enter).");
      showLegal();
    } else if (event.type === "result") {
      state.finished = true;
      state.turn = null;
      clearLegal();
      run(null);
      replay.setResult(event.result);
      if (state.live) beep([523, 659, 784], 160);
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
      pickOut(name);
    }
  });

  // The moves from one pit are picked out in the list (the others dimmed); they are returned.
  function pickOut(name) {
    showLegal();
    var pit = document.querySelector('.pit[data-pit="' + name + '"]');
    if (pit) pit.classList.add("chosen");
    var from = [];
    var buttons = legalList.querySelectorAll("[data-move]");
    for (var i = 0; i < buttons.length; i++) {
      var pick = absolutePit(buttons[i].getAttribute("data-move")) === name;
      buttons[i].classList.toggle("picked", pick);
      buttons[i].classList.toggle("dim", !pick);
      if (pick) from.push(buttons[i].getAttribute("data-move"));
    }
    say("From " + name + ": choose the direction below.");
    return from;
  }

  // ---- keyboard play -----------------------------------------------------------------------

  // The marked pits in the board's order (left to right, as drawn).
  function markedPits() {
    return Array.prototype.slice.call(document.querySelectorAll(".pit.can-start"));
  }

  function focusPit(index) {
    var pits = markedPits();
    if (!pits.length) return;
    state.keys.pit = (index + pits.length) % pits.length;
    for (var i = 0; i < pits.length; i++) pits[i].classList.toggle("key-focus", i === state.keys.pit);
    var name = pits[state.keys.pit].getAttribute("data-pit");
    var count = state.turn.legal.filter(function (m) {
      return absolutePit(m) === name;
    }).length;
    say("Pit " + name + ": " + count + (count === 1 ? " move" : " moves") + ". Enter chooses it.");
  }

  function focusMove(index) {
    var k = state.keys;
    k.move = (index + k.moves.length) % k.moves.length;
    var buttons = legalList.querySelectorAll("[data-move]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].classList.toggle("key-focus", buttons[i].getAttribute("data-move") === k.moves[k.move]);
    }
    say("Move " + k.moves[k.move] + " (" + (k.move + 1) + " of " + k.moves.length + "). Enter plays it, Esc goes back.");
  }

  function onKey(e) {
    var t = e.target;
    if (t && (t.tagName === "SELECT" || t.tagName === "INPUT" || t.tagName === "TEXTAREA")) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (watching || !state.turn || state.turn.sent || state.finished) return; // the replay's keys
    var k = state.keys;
    var key = e.key;
    var enter = key === "Enter" || key === " " || key === "Spacebar";
    // A focused button or link keeps its own Enter and Space.
    if (enter && t && (t.tagName === "BUTTON" || t.tagName === "A")) return;
    if (k.mode === "pit") {
      if (key === "ArrowRight") focusPit(k.pit + 1);
      else if (key === "ArrowLeft") focusPit(k.pit < 0 ? -1 : k.pit - 1);
      else if (enter) {
        if (k.pit < 0) {
          focusPit(0);
        } else {
          var name = markedPits()[k.pit].getAttribute("data-pit");
          var from = state.turn.legal.filter(function (m) {
            return absolutePit(m) === name;
          });
          if (from.length === 1) {
            play(from[0]);
          } else {
            var pit = k.pit;
            var moves = pickOut(name);
            state.keys = { mode: "move", pit: pit, moves: moves, move: -1 };
            focusMove(0);
          }
        }
      } else return;
    } else {
      var digit = key.length === 1 && key >= "1" && key <= "9" ? Number(key) : 0;
      if (key === "ArrowRight") focusMove(k.move + 1);
      else if (key === "ArrowLeft") focusMove(k.move - 1);
      else if (enter) play(k.moves[k.move]);
      else if (digit && digit <= k.moves.length) play(k.moves[digit - 1]);
      else if (key === "Escape") {
        var back = k.pit;
        showLegal();
        focusPit(back);
      } else return;
    }
    e.preventDefault();
    e.stopPropagation(); // not the replay's stepping as well
  }
  // Capturing on window: before the replay's keys (on document).
  window.addEventListener("keydown", onKey, true);

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

/* A room's display (R13, R28): every ball drawn, the last one large, the count, the prizes.
 *
 * The server sends the room's whole state at connect and after every ball, prize or change of
 * game, so the page only ever replaces what it shows. After a dropped connection it reconnects
 * with a growing delay and the first message brings it up to date; a page that hears nothing,
 * not even the heartbeat, says it is reconnecting (static/js/live.js). No framework, no CDN.
 */
(function () {
  "use strict";

  var root = document.getElementById("display");
  if (!root || !window.WebSocket) {
    return;
  }
  var live = root.querySelector("[data-live]");
  var shown = null;
  try {
    shown = JSON.parse(document.getElementById("display-state").textContent);
  } catch (err) {
    shown = null;
  }

  function label(name) {
    return root.getAttribute("data-label-" + name) || "";
  }

  function setText(node, text) {
    if (node && node.textContent !== String(text)) {
      node.textContent = text;
    }
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    return node;
  }

  // Rows of ten numbers; for 75 balls one row per letter of BINGO (R77), as the server draws it.
  function buildBoard(board, size) {
    board.textContent = "";
    board.setAttribute("data-size", String(size));
    board.classList.toggle("display-board-75", size === 75);
    var rows = [];
    var n;
    if (size === 75) {
      "BINGO".split("").forEach(function (letter, i) {
        var numbers = [];
        for (n = i * 15 + 1; n <= i * 15 + 15; n += 1) {
          numbers.push(n);
        }
        rows.push([letter, numbers]);
      });
    } else {
      for (var start = 1; start <= size; start += 10) {
        var numbers = [];
        for (n = start; n < start + 10 && n <= size; n += 1) {
          numbers.push(n);
        }
        rows.push(["", numbers]);
      }
    }
    rows.forEach(function (row) {
      var line = element("div", "display-row");
      if (row[0]) {
        line.appendChild(element("span", "display-letter", row[0]));
      }
      row[1].forEach(function (number) {
        var cell = element("span", "display-cell", number);
        cell.setAttribute("data-n", String(number));
        line.appendChild(cell);
      });
      board.appendChild(line);
    });
  }

  function renderPrizes(section, prizes) {
    section.textContent = "";
    prizes.forEach(function (prize) {
      var box = element("div", "board-prize board-prize-" + prize.kind + (prize.won ? " is-won" : ""));
      box.setAttribute("data-prize", prize.kind);
      box.appendChild(element("span", "board-label", prize.name));
      var value = element("strong", "board-big", prize.display);
      value.setAttribute("data-prize-value", "");
      box.appendChild(value);
      var winners = element(
        "span",
        "display-winners",
        prize.won ? label("won") + " " + prize.winners.join(", ") + " · " + prize.each + " " + label("each") : ""
      );
      winners.setAttribute("data-prize-winners", "");
      box.appendChild(winners);
      section.appendChild(box);
    });
  }

  // A state read at connect may be newer than an event queued just before it: balls are never
  // taken back, so a state of the same game with fewer balls is an old one.
  function isStale(state) {
    return Boolean(
      shown && shown.game && state.game && shown.game.id === state.game.id && state.game.count < shown.game.count
    );
  }

  // Each new ball is read out by a screen reader from the assertive live region (WCAG 4.1.3),
  // with its letter on a 75-ball game (R77); the balls drawn before the page opened are not.
  var announced = shown && shown.game ? shown.game.id + ":" + shown.game.count : null;
  function announce(game) {
    var now = game ? game.id + ":" + game.count : null;
    if (game && game.last_label && game.count > 0 && now !== announced) {
      setText(root.querySelector("[data-announce]"), label("ball") + " " + game.last_label);
    }
    announced = now;
  }

  function render(state) {
    var game = state.game;
    var board = root.querySelector("[data-board]");
    var size = game ? game.size : 90;
    if (board.getAttribute("data-size") !== String(size)) {
      buildBoard(board, size);
    }
    var drawn = {};
    var balls = game ? game.balls : [];
    balls.forEach(function (n) {
      drawn[n] = true;
    });
    var last = game ? game.last : null;
    Array.prototype.forEach.call(board.querySelectorAll("[data-n]"), function (cell) {
      var n = Number(cell.getAttribute("data-n"));
      cell.classList.toggle("is-drawn", drawn[n] === true);
      cell.classList.toggle("is-last", n === last);
    });
    setText(
      root.querySelector("[data-game-title]"),
      game ? label("game") + " " + game.number : label("no-game")
    );
    setText(root.querySelector("[data-game-state]"), game ? game.state_name : "");
    setText(root.querySelector("[data-last]"), game && game.last_label ? game.last_label : "–");
    announce(game);
    setText(root.querySelector("[data-count]"), game ? game.count : 0);
    setText(root.querySelector("[data-cards-sold]"), game ? game.cards_sold : 0);
    renderPrizes(root.querySelector("[data-prizes]"), game ? game.prizes : []);
    // R73 b): the pattern the bingo is, redrawn when the game changes (static/js/pattern.js).
    if (window.bingoPattern) {
      window.bingoPattern.render(root.querySelector("[data-game-pattern]"), game ? game.pattern : null);
    }

    var jackpot = root.querySelector("[data-jackpot]");
    var pot = state.jackpot || {};
    jackpot.hidden = !pot.active;
    setText(jackpot.querySelector("[data-jackpot-value]"), pot.display || "");
    setText(jackpot.querySelector("[data-jackpot-balls]"), pot.balls ? label("up-to-ball") + " " + pot.balls : "");
    setText(jackpot.querySelector("[data-jackpot-won]"), pot.won ? label("jackpot-won") + ": " + pot.won : "");

    showLastGame(state);
    root.setAttribute("data-ball-count", String(game ? game.count : 0));
    root.setAttribute("data-updated", String(Date.now()));
    shown = state;
  }

  // R53: the last game is announced in the session's last 10 minutes. The state says whether
  // they have begun, and when they begin; the notice comes on then even if no ball or sale
  // brings a new state.
  var lastGameTimer = null;
  // A session may end months ahead: a longer timeout would overflow and fire at once.
  var SIX_HOURS = 6 * 3600 * 1000;
  function showLastGame(state) {
    var notice = root.querySelector("[data-last-game]");
    var from = state.last_game_from ? Date.parse(state.last_game_from) : NaN;
    var due = Boolean(state.game && (state.last_game || (!isNaN(from) && Date.now() >= from)));
    notice.hidden = !due;
    window.clearTimeout(lastGameTimer);
    if (!due && state.game && !isNaN(from)) {
      lastGameTimer = window.setTimeout(function () {
        showLastGame(state);
      }, Math.min(Math.max(from - Date.now(), 1000), SIX_HOURS));
    }
  }

  if (shown) {
    showLastGame(shown);
  }

  // static/js/live.js: the badge, the heartbeat's watchdog, reconnecting with back-off.
  window.bingoLive.follow(root.getAttribute("data-ws-path"), {
    badge: live,
    onLive: function (isLive) {
      root.classList.toggle("is-offline", !isLive);
    },
    onMessage: function (state) {
      if (state.type === "display" && !isStale(state)) {
        render(state);
      }
    }
  });
})();

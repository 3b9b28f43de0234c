/* The price board (R29): live figures over a websocket, no framework, no CDN.
 *
 * The server sends the whole set of figures at connect and after every sale, so the page only
 * ever replaces what it shows; after a dropped connection it reconnects with a growing delay
 * and the first message brings it up to date.
 */
(function () {
  "use strict";

  var board = document.getElementById("board");
  if (!board || !window.WebSocket) {
    return;
  }
  var live = board.querySelector("[data-live]");

  function setText(root, selector, text) {
    var node = root.querySelector(selector);
    if (node && node.textContent !== String(text)) {
      node.textContent = text;
    }
  }

  function render(figures) {
    board.setAttribute("data-state", figures.state);
    setText(board, "[data-cards-sold]", figures.cards_sold);
    setText(board, "[data-total]", figures.total_display);
    board.querySelector("[data-selling]").hidden = !figures.selling;
    // The game's real state once it stops selling: sales closed, drawing, finished, annulled.
    var state = board.querySelector("[data-state-name]");
    state.hidden = figures.selling;
    setText(board, "[data-state-name]", state.getAttribute("data-label-" + figures.state) || figures.state);
    board.querySelector("[data-results-link]").hidden = !figures.ended;
    (figures.series || []).forEach(function (series) {
      var row = board.querySelector('[data-series="' + series.label + '"]');
      if (row) {
        setText(row, "[data-price]", series.price_display);
        setText(row, "[data-series-sold]", series.cards_sold);
      }
    });
    (figures.prizes || []).forEach(function (prize) {
      var box = board.querySelector('[data-prize="' + prize.kind + '"]');
      if (box) {
        setText(box, "[data-prize-value]", prize.display);
      }
    });
    var jackpot = board.querySelector("[data-jackpot]");
    jackpot.hidden = !figures.jackpot_active;
    setText(jackpot, "[data-jackpot-value]", figures.jackpot_display);
    board.setAttribute("data-updated", String(Date.now()));
  }

  // static/js/live.js: the badge, the heartbeat's watchdog, reconnecting with back-off.
  window.bingoLive.follow(board.getAttribute("data-ws-path"), {
    badge: live,
    onLive: function (isLive) {
      board.classList.toggle("is-offline", !isLive);
    },
    onMessage: function (figures) {
      if (figures.type === "board") {
        render(figures);
      }
    }
  });
})();

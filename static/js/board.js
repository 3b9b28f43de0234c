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
  var delay = 1000;
  var MAX_DELAY = 30000;

  function setText(root, selector, text) {
    var node = root.querySelector(selector);
    if (node && node.textContent !== String(text)) {
      node.textContent = text;
    }
  }

  function setLive(isLive) {
    if (!live) {
      return;
    }
    live.textContent = live.getAttribute(isLive ? "data-label-live" : "data-label-offline");
    live.classList.toggle("is-live", isLive);
    board.classList.toggle("is-offline", !isLive);
  }

  function render(figures) {
    board.setAttribute("data-state", figures.state);
    setText(board, "[data-cards-sold]", figures.cards_sold);
    setText(board, "[data-total]", figures.total_display);
    board.querySelector("[data-selling]").hidden = !figures.selling;
    board.querySelector("[data-closed]").hidden = figures.selling;
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

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + board.getAttribute("data-ws-path"));
    socket.onopen = function () {
      delay = 1000;
      setLive(true);
    };
    socket.onmessage = function (event) {
      var figures;
      try {
        figures = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      if (figures && figures.type === "board") {
        render(figures);
      }
    };
    socket.onclose = function () {
      setLive(false);
      // Back off, with jitter, so a restarted server is not hit by every board at once.
      var wait = delay + Math.floor(Math.random() * 500);
      delay = Math.min(delay * 2, MAX_DELAY);
      window.setTimeout(connect, wait);
    };
  }

  connect();
})();

/* The lobby's countdowns to each game's close of sales (R93): static/js/live.js. */
(function () {
  "use strict";
  window.bingoLive.countdowns(document.querySelectorAll("[data-countdown]"));
})();

/* The lobby's countdowns to each game's close of sales (R93). No framework. */
(function () {
  "use strict";
  var nodes = document.querySelectorAll("[data-countdown]");
  if (!nodes.length) {
    return;
  }
  function pad(n) {
    return (n < 10 ? "0" : "") + n;
  }
  function tick() {
    var now = Date.now();
    Array.prototype.forEach.call(nodes, function (node) {
      var left = Math.round((Date.parse(node.getAttribute("datetime")) - now) / 1000);
      if (isNaN(left)) {
        return;
      }
      node.textContent = left <= 0 ? node.getAttribute("data-label-closed")
        : Math.floor(left / 60) + ":" + pad(left % 60);
    });
  }
  tick();
  window.setInterval(tick, 1000);
})();

/* The player's pages as an installable web app (issue 25, bingo/pwa): register the service
 * worker at the site's root (its URL is the script tag's data-service-worker), so that a player
 * who loses the connection sees the offline page, which says the game goes on at the server
 * (R99), instead of the browser's error. No inline script (CSP).
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var url = script && script.getAttribute("data-service-worker");
  if (!url || !("serviceWorker" in navigator)) {
    return;
  }
  navigator.serviceWorker.register(url, { scope: "/" }).catch(function () {
    /* an old browser or a private window: the pages work without it */
  });
})();

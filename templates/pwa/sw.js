/* The player's pages' service worker (issue 25 point 6; bingo/pwa/views.py serves it at /sw.js,
 * its scope the whole site). It keeps the offline page and the pages' static files, and when a
 * page cannot be reached (no network) it shows the offline page, which says the game goes on at
 * the server and the player's cards play on (R99). Everything else goes to the network as if it
 * were not there: the pages, the API and the websockets are never answered from a cache.
 */
"use strict";

var CONFIG = {{ config|safe }};
var CACHE = "bingo-" + CONFIG.version;

self.addEventListener("install", function (event) {
  // Fetched without cookies: the offline page kept is nobody's, the same for every player.
  var urls = [CONFIG.offline].concat(CONFIG.precache);
  event.waitUntil(
    caches.open(CACHE).then(function (cache) {
      return cache.addAll(urls.map(function (url) {
        return new Request(url, { credentials: "omit" });
      }));
    }).then(function () {
      return self.skipWaiting();
    })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.indexOf("bingo-") === 0 && name !== CACHE;
      }).map(function (name) {
        return caches.delete(name);
      }));
    }).then(function () {
      return self.clients.claim();
    })
  );
});

function offlinePage() {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(CONFIG.offline);
  });
}

// A static file: from the cache at once when kept, refreshed from the network behind it.
function staticFile(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request).then(function (kept) {
      var fresh = fetch(request).then(function (response) {
        if (response.ok) {
          cache.put(request, response.clone());
        }
        return response;
      });
      if (kept) {
        fresh.catch(function () { /* offline: the kept copy was served */ });
        return kept;
      }
      return fresh;
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") {
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(offlinePage));
    return;
  }
  var url = new URL(request.url);
  if (url.origin === self.location.origin && url.pathname.indexOf(CONFIG.static) === 0) {
    event.respondWith(staticFile(request));
  }
});

/* Background jobs (card sets, print runs): every [data-poll-url] box asks its URL every two
 * seconds for {progress, status_display, finished}, shows the progress, and reloads the page
 * once the job has finished.
 */
(function () {
  "use strict";

  document.querySelectorAll("[data-poll-url]").forEach(function (box) {
    var timer = window.setInterval(function () {
      fetch(box.dataset.pollUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          return response.ok ? response.json() : null;
        })
        .then(function (data) {
          if (!data) {
            return;
          }
          var bar = box.querySelector("progress");
          if (bar) {
            bar.value = data.progress;
          }
          var label = box.querySelector("[data-status]");
          if (label) {
            label.textContent = data.status_display + " · " + data.progress + "%";
          }
          if (data.finished) {
            window.clearInterval(timer);
            window.location.reload();
          }
        })
        .catch(function () {});
    }, 2000);
  });
})();

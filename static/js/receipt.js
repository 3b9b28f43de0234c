/* The sale receipt: its [data-print] button opens the browser's print dialog. */
(function () {
  "use strict";

  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.addEventListener("click", function () {
      window.print();
    });
  });
})();

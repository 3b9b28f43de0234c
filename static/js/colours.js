/* The colours a manager chose for a series (R18), on swatches, cards and the price board.
 *
 * The Content-Security-Policy allows no style="..." attribute, so the templates put the colours
 * in data-css-vars="--name: value; ..." and this sets those CSS custom properties through the
 * CSSOM, which the policy does not govern. Only custom properties (--name) are set; the
 * stylesheet decides what they colour.
 */
(function () {
  "use strict";

  document.querySelectorAll("[data-css-vars]").forEach(function (element) {
    element.getAttribute("data-css-vars").split(";").forEach(function (declaration) {
      var colon = declaration.indexOf(":");
      var name = declaration.slice(0, colon).trim();
      if (colon > 0 && name.indexOf("--") === 0) {
        element.style.setProperty(name, declaration.slice(colon + 1).trim());
      }
    });
  });
})();

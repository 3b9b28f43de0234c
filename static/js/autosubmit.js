/* A <select data-autosubmit> sends its form as soon as another option is chosen (the cash desk
 * picker of the prize payment screen); without JavaScript the form's own button does it.
 */
(function () {
  "use strict";

  document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
    select.addEventListener("change", function () {
      select.form.submit();
    });
  });
})();

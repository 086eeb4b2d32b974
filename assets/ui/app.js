// bourdon ui: the page works without this file; it only makes filters apply as they change.
document.addEventListener('change', (event) => {
  const field = event.target;
  if (!(field instanceof HTMLSelectElement)) return;
  const form = field.form;
  if (form && form.hasAttribute('data-autosubmit')) form.requestSubmit();
});
